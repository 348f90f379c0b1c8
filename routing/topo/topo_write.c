// SPDX-License-Identifier: MIT
/*
 * DOC: writing topology files (ibnetdiscover format, see routing/topo/topo.h).
 *
 * One record a node, in node order, as ibnetdiscover prints it and as
 * routing/topo/topo.c reads it back: the GUID lines, the header (a switch's
 * port 0 LID and LMC in its comment), then one line per connected port
 * with the peer's name, port and, for a CA, its port GUID, and the
 * link's width and speed. To a file it goes through ibfm_file_replace
 * (routing/io/file.h): the old file stays whole until the new one is.
 */
#include "routing/topo/topo.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include "routing/io/file.h"

static void write_link_info(const struct ibfm_port *lp, FILE *out)
{
	if (lp->width && lp->speed)
		fprintf(out, " %ux%s", lp->width, ibfm_speed_name(lp->speed));
	fputc('\n', out);
}

/* The LID a port line names for the remote end, as ibnetdiscover does. */
static unsigned remote_lid(const struct ibfm_fabric *f,
			   const struct ibfm_port *rp)
{
	const struct ibfm_node *rn = &f->nodes[rp->node];

	return ibfm_node_is_switch(rn) ? f->ports[rn->port0].lid : rp->lid;
}

static void write_node(const struct ibfm_fabric *f, uint32_t id, FILE *out)
{
	const struct ibfm_node *n = &f->nodes[id];
	const struct ibfm_port *p0 = &f->ports[n->port0];
	const char *name = ibfm_fabric_str(f, n->name);
	unsigned i;

	fprintf(out, "\nvendid=0x%x\ndevid=0x%x\nsysimgguid=0x%" PRIx64 "\n",
		n->vendid, n->devid, n->sysguid);
	if (ibfm_node_is_switch(n))
		fprintf(out,
			"switchguid=0x%" PRIx64 "(%" PRIx64 ")\n"
			"Switch\t%u \"%s\"\t\t# \"%s\" %s port 0 lid %u lmc %u\n",
			n->guid, p0->guid, n->nports, name,
			ibfm_fabric_str(f, n->desc),
			n->esp0 ? "enhanced" : "base", p0->lid, p0->lmc);
	else
		fprintf(out,
			"%sguid=0x%" PRIx64 "\n%s\t%u \"%s\"\t\t# \"%s\"\n",
			n->type == IBFM_NODE_ROUTER ? "rt" : "ca", n->guid,
			ibfm_node_type_name(n->type), n->nports, name,
			ibfm_fabric_str(f, n->desc));

	for (i = 1; i <= n->nports; i++) {
		const struct ibfm_port *lp = &f->ports[n->port0 + i];
		const struct ibfm_port *rp;
		const struct ibfm_node *rn;

		if (lp->peer == IBFM_NONE)
			continue;
		rp = &f->ports[lp->peer];
		rn = &f->nodes[rp->node];
		fprintf(out, "[%u]", i);
		if (!ibfm_node_is_switch(n))
			fprintf(out, "(%" PRIx64 ") ", lp->guid);
		fprintf(out, "\t\"%s\"[%u]", ibfm_fabric_str(f, rn->name),
			rp->num);
		if (!ibfm_node_is_switch(rn))
			fprintf(out, "(%" PRIx64 ") ", rp->guid);
		if (ibfm_node_is_switch(n))
			fprintf(out, "\t\t# \"%s\" lid %u",
				ibfm_fabric_str(f, rn->desc),
				remote_lid(f, rp));
		else
			fprintf(out, "\t\t# lid %u lmc %u \"%s\" lid %u",
				lp->lid, lp->lmc, ibfm_fabric_str(f, rn->desc),
				remote_lid(f, rp));
		write_link_info(lp, out);
	}
}

int ibfm_topo_write(const struct ibfm_fabric *f, FILE *out)
{
	uint32_t i;

	fprintf(out, "#\n# Topology file: written by ibfm\n#\n");
	for (i = 0; i < f->nnodes; i++)
		write_node(f, i, out);
	return ferror(out) ? -EIO : 0;
}

static int write_topo(FILE *out, const void *f)
{
	return ibfm_topo_write(f, out);
}

int ibfm_topo_write_file(const struct ibfm_fabric *f, const char *path,
			 struct ibfm_err *err)
{
	return ibfm_file_replace(path, write_topo, f, err);
}
