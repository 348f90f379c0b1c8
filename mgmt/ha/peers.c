// SPDX-License-Identifier: MIT
/*
 * ibfmd peers: their life, the shared files and their versions on
 * disk, and the peers as status and /metrics show them (see
 * mgmt/ha/peers.h; mgmt/ha/peers_int.h says which file does what).
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "mgmt/net/listen.h"
#include "mgmt/base/log.h"
#include "routing/base/json.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE(peer);

#define KEY_MIN 16
#define VERSIONS_FILE "peers.versions"

/* Its size is checked against NSHARED by the declaration in peers_int.h. */
const char *const ibfmd_peers_shared[] = { IBFM_STATE_DRAINS, IBFM_STATE_JOBS };

int ibfmd_peers_index_of(const char *name)
{
	size_t i;

	for (i = 0; i < NSHARED; i++)
		if (!strcmp(ibfmd_peers_shared[i], name))
			return (int)i;
	return -1;
}

void ibfmd_peers_path_of(const struct ibfmd_peers *p, const char *name,
			 char *buf, size_t len)
{
	if (ibfm_snapshot_path(p->dir, name, buf, len))
		buf[0] = '\0';
}

int ibfmd_peers_print_body(FILE *out, const void *ctx)
{
	const struct body *b = ctx;

	return fwrite(b->data, 1, b->len, out) == b->len ? 0 : -EIO;
}

/* ---- versions on disk ---- */

static int print_versions(FILE *out, const void *ctx)
{
	const struct ibfmd_peers *p = ctx;
	size_t i;

	fprintf(out, "# ibfmd peers: the version of each shared file\n");
	for (i = 0; i < NSHARED; i++)
		fprintf(out, "%s %" PRIu64 "\n", ibfmd_peers_shared[i],
			p->version[i]);
	return ferror(out) ? -EIO : 0;
}

void ibfmd_peers_save_versions(struct ibfmd_peers *p)
{
	struct ibfm_err err;
	char path[4200];

	ibfmd_peers_path_of(p, VERSIONS_FILE, path, sizeof(path));
	if (ibfm_file_replace(path, print_versions, p, &err))
		IBFMD_WARN("%s", err.msg);
}

static void load_versions(struct ibfmd_peers *p)
{
	char path[4200], name[64];
	unsigned long long v;
	FILE *in;

	ibfmd_peers_path_of(p, VERSIONS_FILE, path, sizeof(path));
	in = fopen(path, "r");
	while (in && fscanf(in, "%63s %llu", name, &v) == 2) {
		int i = ibfmd_peers_index_of(name);

		if (i >= 0)
			p->version[i] = v;
	}
	if (in)
		fclose(in);
}

/* ---- life ---- */

/* Reads the shared key: a file only its owner may read, 16+ bytes. */
static int read_key(struct ibfmd_peers *p, const char *path,
		    struct ibfm_err *err)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return ibfm_err_set(err, -errno, "peer_key %s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_mode & (S_IRWXG | S_IRWXO))) {
		close(fd);
		return ibfm_err_set(err, -EINVAL,
				    "peer_key %s: expected a regular file only "
				    "its owner may read (chmod 600)",
				    path);
	}
	n = read(fd, p->key, sizeof(p->key));
	close(fd);
	while (n > 0 && (p->key[n - 1] == '\n' || p->key[n - 1] == '\r'))
		n--;
	if (n < KEY_MIN)
		return ibfm_err_set(err, -EINVAL,
				    "peer_key %s: expected a secret of at "
				    "least %d bytes",
				    path, KEY_MIN);
	p->klen = (size_t)n;
	return 0;
}

/* Splits HOST:PORT ("[v6]:PORT" too) into 'pe'. */
static void split_peer(const char *s, char *host, size_t hlen, char *port,
		       size_t plen)
{
	const char *colon = strrchr(s, ':');
	size_t n = (size_t)(colon - s);

	if (*s == '[' && n >= 2 && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	snprintf(host, hlen, "%.*s", (int)n, s);
	snprintf(port, plen, "%s", colon + 1);
}

static int listen_on(struct ibfmd_peers *p, const char *addr,
		     struct ibfm_err *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE },
			*ai;
	char host[256], port[8];
	int rc;

	split_peer(addr, host, sizeof(host), port, sizeof(port));
	rc = getaddrinfo(host[0] && strcmp(host, "*") ? host : NULL, port,
			 &hints, &ai);
	if (rc)
		return ibfm_err_set(err, -EINVAL, "peer_listen %s: %s", addr,
				    gai_strerror(rc));
	rc = ibfmd_listen_open(p->base, ai->ai_addr, ai->ai_addrlen,
			       ibfmd_peers_accepted, p, ibfmd_log_this,
			       "the peer listener", &p->listener);
	freeaddrinfo(ai);
	if (rc)
		return ibfm_err_set(err, rc, "peer_listen %s: %s", addr,
				    strerror(-rc));
	return 0;
}

int ibfmd_peers_open(struct event_base *base, const struct ibfmd_conf *conf,
		     struct ibfmd_peers **out, struct ibfm_err *err)
{
	struct ibfmd_peers *p = calloc(1, sizeof(*p));
	unsigned k;
	int rc = 0;

	*out = NULL;
	if (!p)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	p->base = base;
	snprintf(p->dir, sizeof(p->dir), "%s", conf->state_dir);
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	load_versions(p);
	for (k = 0; k < conf->npeers; k++) {
		split_peer(conf->peers[k], p->peer[k].host,
			   sizeof(p->peer[k].host), p->peer[k].port,
			   sizeof(p->peer[k].port));
		p->peer[k].state = "unknown";
	}
	p->n = conf->npeers;
	if ((p->n || conf->peer_listen[0]) && !conf->peer_key[0])
		rc = ibfm_err_set(
			err, -EINVAL,
			"peer and peer_listen need peer_key (a shared "
			"secret's file)");
	if (!rc && (p->n || conf->peer_listen[0]) && !conf->state_dir[0])
		rc = ibfm_err_set(err, -EINVAL, "peers need state_dir");
	if (!rc && conf->peer_key[0])
		rc = read_key(p, conf->peer_key, err);
	if (!rc && conf->peer_listen[0])
		rc = listen_on(p, conf->peer_listen, err);
	if (!rc && p->n) {
		rc = -pthread_create(&p->thread, NULL, ibfmd_peers_sync_thread,
				     p);
		p->running = !rc;
		if (rc)
			ibfm_err_set(err, rc, "peers: %s", strerror(-rc));
	}
	if (rc) {
		ibfmd_peers_close(p);
		return rc;
	}
	if (p->n)
		IBFMD_INFO("%u peers; drains and jobs are published to all",
			   p->n);
	*out = p;
	return 0;
}

void ibfmd_peers_close(struct ibfmd_peers *p)
{
	if (!p)
		return;
	if (p->running) {
		pthread_mutex_lock(&p->lock);
		p->stop = true;
		pthread_cond_signal(&p->wake);
		pthread_mutex_unlock(&p->lock);
		pthread_join(p->thread, NULL);
	}
	ibfmd_listen_close(p->listener);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	memset(p->key, 0, sizeof(p->key));
	free(p);
}

unsigned ibfmd_peers_count(const struct ibfmd_peers *p)
{
	return p ? p->n : 0;
}

/* How the peer is named in status and /metrics: HOST:PORT. */
static void peer_name(const struct ibfmd_peers *p, unsigned k, char *buf,
		      size_t size)
{
	snprintf(buf, size, "%s:%s", p->peer[k].host, p->peer[k].port);
}

void ibfmd_peers_json(struct ibfmd_peers *p, struct ibfm_json *j)
{
	unsigned k;

	ibfm_json_arr_begin(j, "peers");
	pthread_mutex_lock(&p->lock);
	for (k = 0; k < p->n; k++) {
		char name[300];

		peer_name(p, k, name, sizeof(name));
		ibfm_json_obj_begin(j, NULL);
		ibfm_json_str(j, "peer", name);
		ibfm_json_str(j, "state", p->peer[k].state);
		if (p->peer[k].why[0])
			ibfm_json_str(j, "error", p->peer[k].why);
		ibfm_json_uint(j, "last_sync", (uint64_t)p->peer[k].last_sync);
		ibfm_json_obj_end(j);
	}
	pthread_mutex_unlock(&p->lock);
	ibfm_json_arr_end(j);
}

void ibfmd_peers_metrics(struct ibfmd_peers *p, struct evbuffer *b)
{
	unsigned k;

	evbuffer_add_printf(
		b,
		"# HELP ibfm_peer_up 1 when the last exchange with the peer succeeded, 0 when it was unreachable or refused (or not asked yet)\n# TYPE ibfm_peer_up gauge\n");
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	for (k = 0; k < p->n; k++) {
		char name[300];

		/* HOST:PORT from the configuration: no quote to escape. */
		peer_name(p, k, name, sizeof(name));
		evbuffer_add_printf(b, "ibfm_peer_up{peer=\"%s\"} %d\n", name,
				    !strcmp(p->peer[k].state, "ok"));
	}
	pthread_mutex_unlock(&p->lock);
}
