/* SPDX-License-Identifier: MIT */
#ifndef IBFM_CTL_CLIENT_H
#define IBFM_CTL_CLIENT_H

/*
 * DOC: the client side of ibfmd's control socket: connect to the Unix
 * socket, send one request line, read one reply line, close. One
 * connection per request keeps the client free of state; ibfmd answers
 * each line with exactly one line. No printing here: the caller says
 * what went wrong in its own words.
 */

#include <stdbool.h>

#define IBFM_CLIENT_MAX_REPLY (64 << 20) /* bytes of one reply line */

/*
 * Sends 'line' (a request ending in '\n', see ibfm_req_encode()) to the
 * socket at 'path' and stores the reply line, NUL-terminated and
 * malloc'ed (the caller frees it), in '*reply'; '*reply' is NULL on
 * failure. The whole exchange (connecting, sending, the reply) takes at
 * most 'timeout_ms' milliseconds (0: no limit). Returns 0; -errno when
 * the socket cannot be reached (from socket() or connect(), e.g.
 * -ENOENT, -ECONNREFUSED, -EACCES; -ENAMETOOLONG for a path too long for
 * a socket); -ETIMEDOUT when the time ran out; -EPIPE when no reply came
 * (the connection closed without one, or no memory to hold it). A daemon
 * that hung up without reading the request may still have said why
 * ("too many clients"): that is the reply. Never raises SIGPIPE.
 */
int ibfm_client_ask(const char *path, const char *line, unsigned timeout_ms,
		    char **reply);

/*
 * Whether 'reply' is an error reply: an object whose first member is
 * "error", as {"error": "unknown command ..."}. Other members may follow
 * (did_you_mean, busy).
 */
bool ibfm_client_is_error(const char *reply);

/*
 * An error reply may say what kind of error it is in "error_kind":
 * IBFM_CTL_ERR_INPUT when the request named something that is not
 * there (an endpoint, an element): bad input, as it is offline.
 */
#define IBFM_CTL_ERR_INPUT "input"

/*
 * IBFM_CTL_ERR_PERMISSION when the peer may not ask for the command
 * (ctl/ctl.h says who may); the CLI exits 4 for it as for any error.
 */
#define IBFM_CTL_ERR_PERMISSION "permission"

#endif /* IBFM_CTL_CLIENT_H */
