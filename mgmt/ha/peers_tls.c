// SPDX-License-Identifier: MIT
/*
 * ibfmd peers' channel: TLS 1.3 with an external PSK through OpenSSL,
 * each step on a non-blocking socket and bounded by one deadline, so a
 * peer that sends a byte now and then costs no more than that deadline;
 * and the SHA-256 digests that name a file's content.
 *
 * Why TLS 1.3 with a PSK: both ends hold the same key file and nothing
 * else (no certificates to issue or renew); the handshake authenticates
 * both sides before a byte of a request is read, so an unauthenticated
 * client costs a handshake and no buffered body; every message is
 * encrypted and bound to its connection (no replay). The psk_dhe_ke
 * mode adds an ECDHE share, so a key that leaks later does not open
 * recorded sessions. No tickets: each connection is a full handshake.
 */
#include "mgmt/ha/peers_int.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#define PSK_IDENTITY "ibfmd-peer"
#define PSK_LABEL "ibfmd peers psk 1" /* what the key's digest starts with */

/* ---- digests ---- */

void ibfmd_peers_digest(const void *data, size_t len, uint8_t d[DIGEST_LEN])
{
	unsigned n = DIGEST_LEN;

	if (!EVP_Digest(data, len, d, &n, EVP_sha256(), NULL))
		memset(d, 0, DIGEST_LEN); /* only without memory: no match */
}

void ibfmd_peers_tls_psk(const uint8_t *key, size_t len,
			 uint8_t psk[DIGEST_LEN])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned n = DIGEST_LEN;

	if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) ||
	    !EVP_DigestUpdate(c, PSK_LABEL, strlen(PSK_LABEL)) ||
	    !EVP_DigestUpdate(c, key, len) || !EVP_DigestFinal_ex(c, psk, &n))
		memset(psk, 0, DIGEST_LEN);
	EVP_MD_CTX_free(c);
}

void ibfmd_peers_digest_hex(const uint8_t *d, char hex[DIGEST_HEX])
{
	static const char digits[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < DIGEST_LEN; i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[2 * DIGEST_LEN] = '\0';
}

bool ibfmd_peers_digest_parse(const char *s, uint8_t d[DIGEST_LEN])
{
	unsigned i;

	if (strlen(s) != 2 * DIGEST_LEN)
		return false;
	for (i = 0; i < DIGEST_LEN; i++)
		if (sscanf(s + 2 * i, "%2hhx", &d[i]) != 1)
			return false;
	return true;
}

bool ibfmd_peers_newer(uint64_t va, const uint8_t *da, uint64_t vb,
		       const uint8_t *db)
{
	return va != vb ? va > vb : memcmp(da, db, DIGEST_LEN) > 0;
}

/* ---- the PSK ---- */

/* A session that carries the PSK, for either end. */
static SSL_SESSION *psk_session(SSL *ssl)
{
	static const unsigned char aes128gcm[] = { 0x13, 0x01 };
	struct ibfmd_peers *p = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
	const SSL_CIPHER *cipher = SSL_CIPHER_find(ssl, aes128gcm);
	SSL_SESSION *s = cipher ? SSL_SESSION_new() : NULL;
	uint8_t psk[DIGEST_LEN];

	pthread_mutex_lock(&p->lock); /* SIGHUP may change it */
	memcpy(psk, p->psk, sizeof(psk));
	pthread_mutex_unlock(&p->lock);
	if (s && (!SSL_SESSION_set1_master_key(s, psk, sizeof(psk)) ||
		  !SSL_SESSION_set_cipher(s, cipher) ||
		  !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION))) {
		SSL_SESSION_free(s);
		s = NULL;
	}
	OPENSSL_cleanse(psk, sizeof(psk));
	return s;
}

static int use_psk(SSL *ssl, const EVP_MD *md, const unsigned char **id,
		   size_t *idlen, SSL_SESSION **sess)
{
	(void)md;
	*sess = psk_session(ssl);
	*id = (const unsigned char *)PSK_IDENTITY;
	*idlen = strlen(PSK_IDENTITY);
	return *sess != NULL;
}

static int find_psk(SSL *ssl, const unsigned char *id, size_t idlen,
		    SSL_SESSION **sess)
{
	*sess = NULL;
	if (idlen == strlen(PSK_IDENTITY) && !memcmp(id, PSK_IDENTITY, idlen))
		*sess = psk_session(ssl);
	return 1; /* no session: the handshake fails, as it should */
}

static SSL_CTX *ctx_new(struct ibfmd_peers *p, bool server)
{
	SSL_CTX *c =
		SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());

	if (!c)
		return NULL;
	SSL_CTX_set_app_data(c, p);
	if (!SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION) ||
	    !SSL_CTX_set_ciphersuites(c, "TLS_AES_128_GCM_SHA256") ||
	    !SSL_CTX_set_num_tickets(c, 0)) {
		SSL_CTX_free(c);
		return NULL;
	}
	SSL_CTX_set_options(c, SSL_OP_NO_TICKET);
	SSL_CTX_set_session_cache_mode(c, SSL_SESS_CACHE_OFF);
	if (server)
		SSL_CTX_set_psk_find_session_callback(c, find_psk);
	else
		SSL_CTX_set_psk_use_session_callback(c, use_psk);
	return c;
}

int ibfmd_peers_tls_open(struct ibfmd_peers *p, struct ibfm_err *err)
{
	p->client = ctx_new(p, false);
	p->server = ctx_new(p, true);
	if (p->client && p->server)
		return 0;
	return ibfm_err_set(err, -EIO, "peers: OpenSSL: %s",
			    ERR_reason_error_string(ERR_get_error()));
}

void ibfmd_peers_tls_close(struct ibfmd_peers *p)
{
	SSL_CTX_free(p->client);
	SSL_CTX_free(p->server);
	p->client = p->server = NULL;
}

/* ---- I/O before a deadline ---- */

struct timespec ibfmd_peers_after_ms(long ms)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ibfmd_peers_plus_ms(t, ms);
}

struct timespec ibfmd_peers_plus_ms(struct timespec t, long ms)
{
	t.tv_sec += ms / 1000;
	t.tv_nsec += (ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

long ibfmd_peers_left_ms(const struct timespec *deadline)
{
	struct timespec now;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long)(deadline->tv_sec - now.tv_sec) * 1000 +
	     (deadline->tv_nsec - now.tv_nsec) / 1000000L;
	return ms > 0 ? ms : 0;
}

/*
 * After an OpenSSL call returned 'ret': waits for the socket as it
 * asks, until the deadline. 0 to call again, -1 to give up.
 */
static int wait_for(SSL *ssl, int ret, const struct timespec *deadline)
{
	struct pollfd pfd = { SSL_get_fd(ssl), 0, 0 };
	long left = ibfmd_peers_left_ms(deadline);

	switch (SSL_get_error(ssl, ret)) {
	case SSL_ERROR_WANT_READ:
		pfd.events = POLLIN;
		break;
	case SSL_ERROR_WANT_WRITE:
		pfd.events = POLLOUT;
		break;
	default:
		return -1;
	}
	ERR_clear_error();
	return left && poll(&pfd, 1, (int)left) == 1 ? 0 : -1;
}

int ibfmd_peers_tls_handshake(SSL *ssl, const struct timespec *deadline)
{
	int ret;

	while ((ret = SSL_do_handshake(ssl)) != 1)
		if (wait_for(ssl, ret, deadline))
			return -1;
	return 0;
}

/* Writes 'len' bytes from, or reads them into, 'buf'. */
static int transfer(SSL *ssl, void *buf, size_t len, bool write,
		    const struct timespec *deadline)
{
	size_t n;

	while (len) {
		int ret = write ? SSL_write_ex(ssl, buf, len, &n)
				: SSL_read_ex(ssl, buf, len, &n);

		if (ret != 1 && wait_for(ssl, ret, deadline))
			return -1;
		if (ret == 1) {
			buf = (char *)buf + n;
			len -= n;
		}
	}
	return 0;
}

int ibfmd_peers_tls_write(SSL *ssl, const void *buf, size_t len,
			  const struct timespec *deadline)
{
	return transfer(ssl, (void *)buf, len, true, deadline);
}

int ibfmd_peers_tls_read(SSL *ssl, void *buf, size_t len,
			 const struct timespec *deadline)
{
	return transfer(ssl, buf, len, false, deadline);
}

int ibfmd_peers_tls_line(SSL *ssl, char *buf, size_t size,
			 const struct timespec *deadline)
{
	size_t got = 0;

	/* A byte at a time from OpenSSL's buffer: no read past the line. */
	while (got + 1 < size) {
		if (ibfmd_peers_tls_read(ssl, buf + got, 1, deadline))
			return -1;
		if (buf[got] == '\n') {
			buf[got] = '\0';
			return 0;
		}
		got++;
	}
	return -1;
}
