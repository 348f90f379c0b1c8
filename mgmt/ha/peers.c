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
#include <openssl/crypto.h>

#include "mgmt/base/log.h"
#include "routing/io/json.h"
#include "routing/state/snapshot.h"

IBFMD_LOG_MODULE(peer);

#define KEY_MIN 16
#define KEY_MAX 4096
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

static void save_versions(struct ibfmd_peers *p)
{
	struct ibfm_err err;
	char path[4200];

	ibfmd_peers_path_of(p, VERSIONS_FILE, path, sizeof(path));
	if (ibfm_file_replace(path, print_versions, p, &err))
		IBFMD_WARN("%s", err.msg);
}

void ibfmd_peers_in_force(struct ibfmd_peers *p, int i, uint64_t version,
			  const uint8_t *d)
{
	p->version[i] = version;
	memcpy(p->digest[i], d, DIGEST_LEN);
	save_versions(p);
}

int ibfmd_peers_put(struct ibfmd_peers *p, int i, uint64_t version,
		    const uint8_t *d, const struct body *b,
		    struct ibfm_err *err)
{
	char path[4200];
	int rc;

	ibfmd_peers_path_of(p, ibfmd_peers_shared[i], path, sizeof(path));
	rc = ibfm_file_replace(path, ibfmd_peers_print_body, b, err);
	if (!rc)
		ibfmd_peers_in_force(p, i, version, d);
	return rc;
}

/* The digest of shared file 'i' as it is on disk (none: the empty list). */
static void digest_of_file(struct ibfmd_peers *p, size_t i)
{
	char path[4200], *data = NULL;
	size_t len = 0;

	ibfmd_peers_path_of(p, ibfmd_peers_shared[i], path, sizeof(path));
	if (ibfm_file_read(path, IBFMD_PEERS_MAX_FILE, &data, &len))
		len = 0;
	ibfmd_peers_digest(data ? data : "", len, p->digest[i]);
	free(data);
}

static void load_versions(struct ibfmd_peers *p)
{
	char path[4200], name[64], line[256];
	unsigned long long v;
	size_t k;
	FILE *in;

	ibfmd_peers_path_of(p, VERSIONS_FILE, path, sizeof(path));
	in = fopen(path, "r");
	/* Line by line: the comment that heads the file is skipped, not
	 * the end of the reading. */
	while (in && fgets(line, sizeof(line), in)) {
		int i;

		if (sscanf(line, "%63s %llu", name, &v) != 2 ||
		    (i = ibfmd_peers_index_of(name)) < 0)
			continue;
		if (v >= VERSION_MAX) {
			IBFMD_WARN("%s: %s version %llu is past the last; no "
				   "change can follow it",
				   path, name, v);
			v = VERSION_MAX;
		}
		p->version[i] = v;
	}
	if (in)
		fclose(in);
	for (k = 0; k < NSHARED; k++)
		digest_of_file(p, k);
}

bool ibfmd_peers_pending_fresh(const struct pending *pd)
{
	struct timespec until =
		ibfmd_peers_plus_ms(pd->since, 2 * IBFMD_PEERS_DEADLINE_MS);

	return pd->version && ibfmd_peers_left_ms(&until);
}

/* ---- life ---- */

/* Reads the shared key's PSK into 'psk': a file of ibfmd's user that
 * only it may read, of KEY_MIN to KEY_MAX bytes. */
static int read_key(const char *path, uint8_t psk[DIGEST_LEN],
		    struct ibfm_err *err)
{
	uint8_t key[KEY_MAX + 1];
	struct stat st;
	ssize_t n, got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return ibfm_err_set(err, -errno, "peer_key %s: %s", path,
				    strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (st.st_mode & (S_IRWXG | S_IRWXO)) || st.st_uid != geteuid()) {
		close(fd);
		return ibfm_err_set(err, -EINVAL,
				    "peer_key %s: expected a regular file of "
				    "ibfmd's user that only its owner may "
				    "read (chown, chmod 600)",
				    path);
	}
	while ((n = read(fd, key + got, sizeof(key) - (size_t)got)) > 0)
		got += n;
	close(fd);
	while (got > 0 && (key[got - 1] == '\n' || key[got - 1] == '\r'))
		got--;
	if (n < 0 || got < KEY_MIN || got > KEY_MAX) {
		OPENSSL_cleanse(key, sizeof(key));
		return ibfm_err_set(err, -EINVAL,
				    "peer_key %s: expected a secret of %d to "
				    "%d bytes",
				    path, KEY_MIN, KEY_MAX);
	}
	ibfmd_peers_tls_psk(key, (size_t)got, psk);
	OPENSSL_cleanse(key, sizeof(key));
	return 0;
}

void ibfmd_peers_split(const char *s, char *host, size_t hlen, char *port,
		       size_t plen)
{
	const char *colon = strrchr(s, ':');
	size_t n = colon ? (size_t)(colon - s) : strlen(s);

	if (*s == '[' && n >= 2 && s[n - 1] == ']') {
		s++;
		n -= 2;
	}
	snprintf(host, hlen, "%.*s", (int)n, s);
	snprintf(port, plen, "%s", colon ? colon + 1 : "");
}

/* Whether 'conf' asks for what peering needs; 0 or -EINVAL with 'err'. */
static int check_conf(const struct ibfmd_peers *p,
		      const struct ibfmd_conf *conf, struct ibfm_err *err)
{
	if ((conf->npeers || conf->peer_listen[0]) && !conf->peer_key[0])
		return ibfm_err_set(err, -EINVAL,
				    "peer and peer_listen need peer_key (a "
				    "shared secret's file)");
	if ((conf->npeers || conf->peer_listen[0]) && !p->dir[0])
		return ibfm_err_set(err, -EINVAL, "peers need state_dir");
	return 0;
}

/* Takes the peers of 'conf'; numeric addresses resolved now, names by
 * the sync thread. Under p->lock. */
static void set_peers(struct ibfmd_peers *p, const struct ibfmd_conf *conf)
{
	unsigned k;

	memset(p->peer, 0, sizeof(p->peer));
	for (k = 0; k < conf->npeers; k++) {
		struct peer *pe = &p->peer[k];

		ibfmd_peers_split(conf->peers[k], pe->host, sizeof(pe->host),
				  pe->port, sizeof(pe->port));
		pe->state = "unknown";
		ibfmd_peers_resolve(pe, true);
	}
	p->n = conf->npeers;
}

/* Starts the sync thread if there are peers and it is not running. */
static int start_sync(struct ibfmd_peers *p, struct ibfm_err *err)
{
	int rc;

	if (!p->n || p->running)
		return 0;
	rc = pthread_create(&p->thread, NULL, ibfmd_peers_sync_thread, p);
	p->running = !rc;
	return rc ? ibfm_err_set(err, -rc, "peers: %s", strerror(rc)) : 0;
}

static int start_publisher(struct ibfmd_peers *p, struct ibfm_err *err)
{
	int rc = pthread_create(&p->publisher, NULL,
				ibfmd_peers_publisher_thread, p);

	p->publisher_running = !rc;
	return rc ? ibfm_err_set(err, -rc, "peers: %s", strerror(rc)) : 0;
}

/* The peers object, its locks and clock; NULL without memory. */
static struct ibfmd_peers *peers_new(const char *dir)
{
	struct ibfmd_peers *p = calloc(1, sizeof(*p));
	pthread_condattr_t ca;

	if (!p)
		return NULL;
	snprintf(p->dir, sizeof(p->dir), "%s", dir);
	p->lfd = p->stop_pipe[0] = p->stop_pipe[1] = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->publishing, NULL);
	pthread_cond_init(&p->served, NULL);
	pthread_cond_init(&p->publish, NULL);
	p->tail = &p->queue;
	/* The sync thread sleeps on the monotonic clock: a clock step
	 * neither stops nor hurries it. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &ca);
	pthread_condattr_destroy(&ca);
	return p;
}

int ibfmd_peers_open(const struct ibfmd_conf *conf, struct event_base *base,
		     struct ibfmd_peers **out, struct ibfm_err *err)
{
	struct ibfmd_peers *p = peers_new(conf->state_dir);
	int rc;

	*out = NULL;
	if (!p)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	p->base = base;
	load_versions(p);
	set_peers(p, conf);
	rc = check_conf(p, conf, err);
	if (!rc && conf->peer_key[0])
		rc = read_key(conf->peer_key, p->psk, err);
	if (!rc)
		rc = ibfmd_peers_tls_open(p, err);
	if (!rc && conf->peer_listen[0])
		rc = ibfmd_peers_serve_open(p, conf->peer_listen, err);
	if (!rc)
		rc = start_sync(p, err);
	if (!rc)
		rc = start_publisher(p, err);
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

int ibfmd_peers_reload(struct ibfmd_peers *p, const struct ibfmd_conf *conf,
		       struct ibfm_err *err)
{
	uint8_t psk[DIGEST_LEN] = { 0 };
	int rc = check_conf(p, conf, err);

	if (!rc && conf->peer_key[0])
		rc = read_key(conf->peer_key, psk, err);
	if (rc)
		return rc;
	pthread_mutex_lock(&p->publishing);
	pthread_mutex_lock(&p->lock);
	set_peers(p, conf);
	memcpy(p->psk, psk, sizeof(psk));
	pthread_cond_signal(&p->wake); /* a sync round with them now */
	pthread_mutex_unlock(&p->lock);
	pthread_mutex_unlock(&p->publishing);
	OPENSSL_cleanse(psk, sizeof(psk));
	IBFMD_INFO("SIGHUP: %u peers", p->n);
	return start_sync(p, err);
}

void ibfmd_peers_close(struct ibfmd_peers *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_signal(&p->wake);
	pthread_cond_signal(&p->publish);
	pthread_mutex_unlock(&p->lock);
	if (p->running)
		pthread_join(p->thread, NULL);
	if (p->publisher_running)
		pthread_join(p->publisher, NULL);
	ibfmd_peers_publications_free(p);
	ibfmd_peers_serve_close(p);
	ibfmd_peers_tls_close(p);
	pthread_cond_destroy(&p->served);
	pthread_cond_destroy(&p->publish);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->publishing);
	pthread_mutex_destroy(&p->lock);
	OPENSSL_cleanse(p->psk, sizeof(p->psk));
	free(p);
}

/* Says how the last exchange with peer 'k' went. */
void ibfmd_peers_note(struct ibfmd_peers *p, unsigned k, int rc,
		      const char *why)
{
	struct peer *pe = &p->peer[k];

	if (k >= p->n) /* SIGHUP took it away meanwhile */
		return;
	pe->state = !rc ? "ok" : rc == -1 ? "unreachable" : "refused";
	snprintf(pe->why, sizeof(pe->why), "%s", rc ? why : "");
	if (!rc)
		pe->last_sync = time(NULL);
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
