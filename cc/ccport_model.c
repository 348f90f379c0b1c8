// SPDX-License-Identifier: MIT
/*
 * The CC node model as ibfmd's CC transport (cc/ccport.h), for the test
 * build tests/ibfmd-ccmodel only: every target of a job is a model node
 * (added when first seen), given the faults of $IBFM_CC_MODEL_FAULTS.
 */
#include "cc/ccport.h"

#include <errno.h>
#include <stdlib.h>

#include "cc/ccmodel.h"
#include "mgmt/base/log.h"

#define FAULTS_ENV "IBFM_CC_MODEL_FAULTS"

IBFMD_LOG_MODULE_EXTERN(cc);

struct ibfm_ccport {
	struct ibfm_ccmodel model; /* the nodes answering CC MADs */
};

/* The faults file named by the environment, if any. */
static int load_faults(struct ibfm_ccmodel *m, struct ibfm_err *err)
{
	const char *path = getenv(FAULTS_ENV);
	char *text;
	int rc;

	if (!path || !path[0])
		return 0;
	text = ibfm_ccprofile_read_text(path, err);
	if (!text)
		return err->code;
	rc = ibfm_ccmodel_faults(m, text, path, err);
	free(text);
	return rc;
}

int ibfm_ccport_open(struct ibfm_ccport **out, struct ibfm_err *err)
{
	struct ibfm_ccport *p = calloc(1, sizeof(*p));
	int rc;

	if (!p)
		return ibfm_err_set(err, -ENOMEM, "out of memory");
	rc = load_faults(&p->model, err);
	if (rc) {
		ibfm_ccport_close(p);
		return rc;
	}
	IBFMD_WARN("a test build: CC MADs are answered by the CC node model, "
		   "not sent to the fabric");
	*out = p;
	return 0;
}

void ibfm_ccport_close(struct ibfm_ccport *p)
{
	if (!p)
		return;
	ibfm_ccmodel_free(&p->model);
	free(p);
}

const char *ibfm_ccport_name(const struct ibfm_ccport *p)
{
	(void)p;
	return "model";
}

uint16_t ibfm_ccport_begin(struct ibfm_ccport *p, struct ibfm_madport *mad,
			   const struct ibfm_cc_target *t, size_t n,
			   unsigned timeout_ms, struct ibfm_cc_transport *tr)
{
	(void)mad;
	(void)timeout_ms;
	/* Without its nodes the model cannot answer: no transport then. */
	*tr = (struct ibfm_cc_transport){ ibfm_ccmodel_send,
					  ibfm_ccmodel_add(&p->model, t, n)
						  ? NULL
						  : &p->model };
	return 0;
}
