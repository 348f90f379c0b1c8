/* SPDX-License-Identifier: MIT */
#ifndef IBFM_MADWIN_H
#define IBFM_MADWIN_H

/*
 * DOC: a window of MADs in flight over one umad port.
 *
 * One MAD at a time waits a whole round trip per attribute; a sweep of a
 * large fabric is tens of thousands of them. The window keeps up to N
 * requests outstanding on one umad port (libibumad's umad_send and
 * umad_recv on a port libibmad opened, or any fd with agents registered
 * for the classes used), builds each MAD with libibmad's encoder, and
 * matches every answer to its request by the low 32 bits of the
 * transaction ID (the kernel, and umad2sim, own the upper ones). A
 * request that gets no answer within its timeout is sent again with a
 * fresh TID, at most 'retries' times, then completes with -ETIMEDOUT; a
 * late answer to an earlier try matches nothing and is dropped.
 *
 * Requests come from the caller as the window has room: ibfm_madwin_run
 * pulls the next one through a callback and hands each completed one to
 * another, so memory stays bounded by the window whatever the number of
 * MADs, and an answer can make more requests (a breadth-first walk).
 * ibfm_madwin_batch is the plain form: an array of requests in, the
 * same array with the answers out.
 *
 * Plain C over libibumad and libibmad: no event loop, no threads. Calls
 * block until their MADs complete. One window per port and thread.
 * Link mgmt/libibfmmadwin.la (a libtool convenience library, PIC: the
 * OpenSM plugin can take it too) with $(MAD_LIBS) $(UMAD_LIBS).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ibmad_port;
struct ibfm_madwin;

#define IBFM_MADWIN_HOPS 63	   /* a directed route's most hops */
#define IBFM_MADWIN_DATA 192	   /* a GS MAD's data area (an SMP's: 64) */
#define IBFM_MADWIN_WINDOW 16	   /* MADs in flight by default */
#define IBFM_MADWIN_MAX_WINDOW 256 /* the most a window may hold */
#define IBFM_MADWIN_TIMEOUT_MS 500 /* per try, by default */
#define IBFM_MADWIN_RETRIES 1	   /* tries after the first, by default */

/* Which agent sends a request, by its management class. */
enum ibfm_madwin_class {
	IBFM_MADWIN_SMP, /* subnet management: by LID, or directed route */
	IBFM_MADWIN_PMA, /* performance management (0x04) */
	IBFM_MADWIN_CC,	 /* congestion control (0x21) */
	IBFM_MADWIN_NCLASSES
};

/*
 * One MAD and its answer. Fill it with ibfm_madwin_smp_dr(), _smp_lid(),
 * _pma() or _cc(), then set 'tag' (and 'data' for a Set).
 */
struct ibfm_madwin_req {
	uintptr_t tag;	     /* the caller's: what this request is for */
	uint64_t key;	     /* M_Key (SMP) or CC_Key (CC); 0 usually */
	uint32_t mod;	     /* attribute modifier */
	uint16_t attr;	     /* attribute ID */
	uint16_t lid;	     /* LID routed to this LID; 0: directed route */
	uint16_t timeout_ms; /* per try; 0: the window's */
	uint16_t status;     /* out: the answer's MAD status, 0 is good */
	uint8_t mclass;	     /* enum ibfm_madwin_class */
	uint8_t method;	     /* IB_MAD_METHOD_GET or IB_MAD_METHOD_SET */
	uint8_t hops;	     /* directed route: hops from the local port */
	uint8_t path[IBFM_MADWIN_HOPS]; /* the out-port of each hop */
	int rc; /* out: 0 answered (see 'status'), -ETIMEDOUT, or the
		 * negative errno of a send that failed */
	uint8_t data[IBFM_MADWIN_DATA]; /* in: a Set's attribute (a PMA
					 * Get's PortSelect); out: the
					 * answer's data area */
};

/* How a window behaves; zeros take the defaults above. */
struct ibfm_madwin_opts {
	unsigned window;     /* MADs in flight, 1..IBFM_MADWIN_MAX_WINDOW */
	unsigned timeout_ms; /* per try */
	unsigned retries;    /* tries after the first; see 'no_retries' */
	bool no_retries;     /* one try only (retries 0 means the default) */
};

/* The umad port a window sends on: its fd and the agent of each class
 * (-1 where the class is not registered). */
struct ibfm_madwin_port {
	int fd;
	int smi;    /* class 0x01: LID-routed SMPs */
	int smi_dr; /* class 0x81: directed-route SMPs */
	int pma;    /* class 0x04: performance management */
	int cc;	    /* class 0x21: congestion control */
};

/* What a window did since it was created. */
struct ibfm_madwin_stats {
	uint64_t sent;	   /* MADs sent, tries included */
	uint64_t answered; /* requests answered */
	uint64_t retried;  /* tries after a timeout */
	uint64_t timedout; /* requests that got no answer at all */
	uint64_t dropped;  /* answers that matched no request in flight */
};

/*
 * Fills 'p' from a port libibmad opened (mad_rpc_open_port) with the
 * classes the caller will use; the window does not own it.
 */
void ibfm_madwin_port_of(struct ibmad_port *mp, struct ibfm_madwin_port *p);

/*
 * A window over 'p' with 'o' (NULL: the defaults). 0, -EINVAL for a
 * window out of range, or -ENOMEM. The port stays the caller's.
 */
int ibfm_madwin_create(const struct ibfm_madwin_port *p,
		       const struct ibfm_madwin_opts *o,
		       struct ibfm_madwin **out);

/* Frees 'w' (MADs still in flight are forgotten). NULL is fine. */
void ibfm_madwin_destroy(struct ibfm_madwin *w);

/* The number of MADs 'w' keeps in flight. */
unsigned ibfm_madwin_window(const struct ibfm_madwin *w);

/* Copies 'w's counters to 'st'. */
void ibfm_madwin_stats(const struct ibfm_madwin *w,
		       struct ibfm_madwin_stats *st);

/*
 * Fills the next request to send into 'req' (zeroed) and returns true,
 * or false when there is none now. Asked again after each completion,
 * since an answer may make new requests.
 */
typedef bool ibfm_madwin_next_fn(void *arg, struct ibfm_madwin_req *req);

/*
 * Takes a completed request ('rc' and 'status' say how); 'req' is valid
 * during the call only. Return 0 to go on, or a negative errno to stop.
 */
typedef int ibfm_madwin_done_fn(void *arg, struct ibfm_madwin_req *req);

/*
 * Sends what 'next' gives, up to the window at once, and hands every
 * request to 'done' once it completes (in the order answers come), until
 * 'next' has nothing and nothing is in flight. 0, or the first error
 * 'done' returned (then no further MAD is sent and those in flight are
 * forgotten).
 */
int ibfm_madwin_run(struct ibfm_madwin *w, ibfm_madwin_next_fn *next,
		    ibfm_madwin_done_fn *done, void *arg);

/*
 * Sends the 'n' requests of 'v', up to the window at once, and leaves
 * each one's outcome in it ('rc', 'status', 'data'). Returns how many
 * were answered with status 0.
 */
size_t ibfm_madwin_batch(struct ibfm_madwin *w, struct ibfm_madwin_req *v,
			 size_t n);

/*
 * A directed-route SMP: 'method' (IB_MAD_METHOD_GET or _SET) of
 * attribute 'attr' with modifier 'mod' to the node 'hops' hops away by
 * out-ports 'path' (0 hops: the local node). Zeroes 'r' first.
 */
void ibfm_madwin_smp_dr(struct ibfm_madwin_req *r, const uint8_t *path,
			unsigned hops, uint8_t method, uint16_t attr,
			uint32_t mod);

/* A LID-routed SMP to 'lid'; as ibfm_madwin_smp_dr() otherwise. */
void ibfm_madwin_smp_lid(struct ibfm_madwin_req *r, uint16_t lid,
			 uint8_t method, uint16_t attr, uint32_t mod);

/* A PMA Get of 'attr' (PortCounters, ...) for port 'port' of 'lid'
 * (PortSelect; 0 for ClassPortInfo). Zeroes 'r' first. */
void ibfm_madwin_pma(struct ibfm_madwin_req *r, uint16_t lid, uint16_t attr,
		     unsigned port);

#endif /* IBFM_MADWIN_H */
