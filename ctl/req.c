// SPDX-License-Identifier: MIT
/*
 * Requests to ibfmd (ctl/req.h): read from a JSON line on the daemon's
 * side, built from words on the CLI's, checked against the one command
 * table on both, written back as a JSON line.
 *
 * The reader is a small scanner for the one shape a request has, a flat
 * object of strings, integers and booleans, bounded by the line's
 * length (the daemon's input is not NUL-terminated). It reads the line
 * twice: the first pass checks the syntax and finds "cmd", wherever it
 * stands; the second checks each argument against that command, so a
 * misspelt argument is reported as such, not as a syntax error.
 */
#include "ctl/req.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/io/jsonstr.h"
#include "routing/io/json.h"

#define KEY_MAX 64

/*
 * What a JSON value was: the argument types, as the scanner sees them;
 * a string malloc'ed to its size (whoever takes the value frees it).
 */
struct value {
	enum ibfm_arg_type type;
	long long num;
	char *str;
};

int ibfm_req_init(struct ibfm_req *r, const struct ibfm_cmd *table,
		  const char *name, struct ibfm_err *err)
{
	memset(r, 0, sizeof(*r));
	r->cmd = ibfm_cmd_find(table, name);
	if (!r->cmd)
		return ibfm_err_set(
			err, -ENOENT,
			"unknown command \"%.64s\" (see list-commands)", name);
	return 0;
}

/* "unknown argument" with what the command takes instead. */
static int unknown_arg(const struct ibfm_req *r, const char *name,
		       struct ibfm_err *err)
{
	char names[200];

	ibfm_cmd_arg_names(r->cmd, names, sizeof(names));
	return ibfm_err_set(err, -EINVAL,
			    "unknown argument \"%.64s\" for \"%s\" (%s%s)",
			    name, r->cmd->name,
			    names[0] ? "expected: " : "it takes none", names);
}

void ibfm_req_free(struct ibfm_req *r)
{
	unsigned i;

	for (i = 0; i < IBFM_CMD_MAX_ARGS; i++) {
		free(r->v[i].str);
		r->v[i].str = NULL;
		r->v[i].set = false;
	}
}

/*
 * Whether 'v' may be argument 'i': not given yet, of its type (a
 * boolean takes 0 and 1 as well, as older clients sent them).
 */
static int check_put(const struct ibfm_req *r, unsigned i,
		     const struct value *v, struct ibfm_err *err)
{
	const struct ibfm_arg *a = &r->cmd->args[i];
	bool ok = v->type == a->type ||
		  (a->type == IBFM_ARG_BOOL && v->type == IBFM_ARG_INT &&
		   (v->num == 0 || v->num == 1));

	if (r->v[i].set)
		return ibfm_err_set(err, -EINVAL,
				    "argument \"%s\" for \"%s\" given twice",
				    a->name, r->cmd->name);
	if (!ok)
		return ibfm_err_set(err, -EINVAL,
				    "argument \"%s\" for \"%s\" must be %s %s",
				    a->name, r->cmd->name,
				    a->type == IBFM_ARG_INT ? "an" : "a",
				    ibfm_cmd_type_name(a->type));
	return 0;
}

/* Stores 'v' as argument 'i' if it may be; takes v->str in every case. */
static int put(struct ibfm_req *r, unsigned i, struct value *v,
	       struct ibfm_err *err)
{
	char *str = v->str;
	int rc = check_put(r, i, v, err);

	v->str = NULL;
	if (rc) {
		free(str);
		return rc;
	}
	r->v[i].set = true;
	r->v[i].num = v->num;
	r->v[i].str = str;
	return 0;
}

/* The value of 'text' for argument 'i', typed as the table says. */
static int from_text(struct ibfm_req *r, unsigned i, const char *text,
		     struct ibfm_err *err)
{
	static const char *const truth[] = { "true", "yes", "on", "1" };
	static const char *const lie[] = { "false", "no", "off", "0" };
	const struct ibfm_arg *a = &r->cmd->args[i];
	struct value v = { .type = a->type };
	char *end;

	if (strlen(text) > IBFM_REQ_MAX_LINE)
		return ibfm_err_set(
			err, -EINVAL,
			"argument \"%s\" for \"%s\" is longer than a request line may be (%d bytes)",
			a->name, r->cmd->name, IBFM_REQ_MAX_LINE);
	if (a->type == IBFM_ARG_STR) {
		v.str = strdup(text);
		if (!v.str)
			return ibfm_err_set(err, -ENOMEM, "out of memory");
		return put(r, i, &v, err);
	}
	if (a->type == IBFM_ARG_INT) {
		errno = 0;
		v.num = strtoll(text, &end, 10);
		if (!errno && end != text && !*end &&
		    !isspace((unsigned char)*text))
			return put(r, i, &v, err);
	} else {
		for (size_t k = 0; k < sizeof(truth) / sizeof(*truth); k++)
			if (!strcasecmp(text, truth[k]) ||
			    !strcasecmp(text, lie[k])) {
				v.num = !strcasecmp(text, truth[k]);
				return put(r, i, &v, err);
			}
	}
	return ibfm_err_set(
		err, -EINVAL,
		"argument \"%s\" for \"%s\" must be %s %s, not \"%.64s\"",
		a->name, r->cmd->name, a->type == IBFM_ARG_INT ? "an" : "a",
		ibfm_cmd_type_name(a->type), text);
}

int ibfm_req_set(struct ibfm_req *r, const char *name, const char *text,
		 struct ibfm_err *err)
{
	int i = ibfm_cmd_arg(r->cmd, name);

	if (i < 0)
		return unknown_arg(r, name, err);
	return from_text(r, (unsigned)i, text, err);
}

/* Whether [s, e) looks like an argument's name. */
static bool is_name(const char *s, const char *e)
{
	if (s == e || !isalpha((unsigned char)*s))
		return false;
	for (; s < e; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

int ibfm_req_words(struct ibfm_req *r, int n, char *const *words,
		   struct ibfm_err *err)
{
	unsigned pos = 0, nargs = ibfm_cmd_nargs(r->cmd);
	char key[KEY_MAX], names[200];
	int k, rc;

	for (k = 0; k < n; k++) {
		const char *w = words[k], *eq = strchr(w, '=');

		if (eq && is_name(w, eq)) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - w), w);
			rc = ibfm_req_set(r, key, eq + 1, err);
		} else if (pos < nargs) {
			rc = from_text(r, pos++, w, err);
		} else {
			ibfm_cmd_arg_names(r->cmd, names, sizeof(names));
			return ibfm_err_set(
				err, -EINVAL,
				"too many arguments for \"%s\" at \"%.64s\" (%s%s)",
				r->cmd->name, w,
				names[0] ? "expected: " : "it takes none",
				names);
		}
		if (rc)
			return rc;
	}
	return 0;
}

int ibfm_req_check(const struct ibfm_req *r, struct ibfm_err *err)
{
	unsigned i, n = ibfm_cmd_nargs(r->cmd);

	for (i = 0; i < n; i++)
		if (r->cmd->args[i].required && !r->v[i].set)
			return ibfm_err_set(
				err, -EINVAL,
				"missing argument \"%s\" for \"%s\"",
				r->cmd->args[i].name, r->cmd->name);
	return 0;
}

/* The scanner: [s, e) of one line, and whether a member was read yet. */
struct scan {
	const char *s, *e;
	bool first;
};

static void skip(struct scan *sc)
{
	while (sc->s < sc->e && isspace((unsigned char)*sc->s))
		sc->s++;
}

static bool take(struct scan *sc, char c)
{
	skip(sc);
	if (sc->s < sc->e && *sc->s == c) {
		sc->s++;
		return true;
	}
	return false;
}

/* A "string" into 'out' (NUL-terminated); false when bad or too long. */
static bool get_string(struct scan *sc, char *out, size_t len)
{
	const char *end;

	if (!take(sc, '"'))
		return false;
	end = ibfm_jsonstr_read(sc->s, sc->e, out, len);
	if (!end)
		return false;
	sc->s = end;
	return true;
}

/*
 * A "string" into '*out', malloc'ed to its size: -EINVAL when bad,
 * -ENOMEM. Its end is found first (the escapes are skipped whole).
 */
static int get_string_alloc(struct scan *sc, char **out)
{
	const char *q;
	size_t len;

	*out = NULL;
	if (!take(sc, '"'))
		return -EINVAL;
	for (q = sc->s; q < sc->e && *q != '"'; q += *q == '\\' ? 2 : 1)
		;
	if (q >= sc->e)
		return -EINVAL;
	len = (size_t)(q - sc->s) + 1; /* no escape decodes longer */
	*out = malloc(len);
	if (!*out)
		return -ENOMEM;
	if (!ibfm_jsonstr_read(sc->s, q + 1, *out, len)) {
		free(*out);
		*out = NULL;
		return -EINVAL;
	}
	sc->s = q + 1;
	return 0;
}

/* An integer of up to 18 digits (the line need not end in a NUL). */
static bool get_int(struct scan *sc, long long *v)
{
	const char *digits;
	bool neg = sc->s < sc->e && *sc->s == '-';
	long long n = 0;

	sc->s += neg;
	digits = sc->s;
	while (sc->s < sc->e && isdigit((unsigned char)*sc->s) &&
	       sc->s - digits < 18)
		n = n * 10 + (*sc->s++ - '0');
	if (sc->s == digits ||
	    (sc->s < sc->e && isalnum((unsigned char)*sc->s)))
		return false;
	*v = neg ? -n : n;
	return true;
}

/* 'word' at sc->s, not followed by a letter or digit. */
static bool get_word(struct scan *sc, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(sc->e - sc->s) < n || memcmp(sc->s, word, n) ||
	    (sc->s + n < sc->e && isalnum((unsigned char)sc->s[n])))
		return false;
	sc->s += n;
	return true;
}

static int get_value(struct scan *sc, struct value *v, struct ibfm_err *err)
{
	skip(sc);
	memset(v, 0, sizeof(*v));
	if (sc->s < sc->e && *sc->s == '"') {
		int rc = get_string_alloc(sc, &v->str);

		v->type = IBFM_ARG_STR;
		if (rc == -ENOMEM)
			return ibfm_err_set(err, rc, "out of memory");
		if (rc)
			return ibfm_err_set(
				err, rc, "unterminated string or bad escape");
		return 0;
	}
	v->type = IBFM_ARG_BOOL;
	if (get_word(sc, "true")) {
		v->num = 1;
		return 0;
	}
	if (get_word(sc, "false"))
		return 0;
	v->type = IBFM_ARG_INT;
	if (get_int(sc, &v->num))
		return 0;
	return ibfm_err_set(err, -EINVAL,
			    "expected a string, an integer, true or false");
}

/*
 * The next member into 'key' and 'v' (v->str to be freed): 1, 0 at the
 * object's end, or -EINVAL when the text is not what a request holds.
 */
static int next_member(struct scan *sc, char *key, struct value *v,
		       struct ibfm_err *err)
{
	bool first = sc->first;

	sc->first = false;
	if (take(sc, '}'))
		return 0;
	if (!first && !take(sc, ','))
		return ibfm_err_set(err, -EINVAL, "expected ',' or '}'");
	skip(sc);
	if (!get_string(sc, key, KEY_MAX) || !take(sc, ':'))
		return ibfm_err_set(err, -EINVAL, "expected \"key\": value");
	return get_value(sc, v, err) ? -EINVAL : 1;
}

/*
 * Finds "cmd" into '*cmd' (malloc'ed; the caller frees it in every case)
 * and checks the syntax of the whole line.
 */
static int find_cmd(const char *line, size_t len, char **cmd,
		    struct ibfm_err *err)
{
	struct scan sc = { line, line + len, true };
	char key[KEY_MAX];
	struct value v;
	int rc;

	*cmd = NULL;
	if (!take(&sc, '{'))
		return ibfm_err_set(
			err, -EINVAL,
			"expected a JSON object such as {\"cmd\": \"status\"}");
	while ((rc = next_member(&sc, key, &v, err)) > 0) {
		if (strcmp(key, "cmd")) {
			free(v.str);
			continue;
		}
		if (v.type != IBFM_ARG_STR || !v.str[0] || *cmd) {
			bool named = v.type == IBFM_ARG_STR && v.str[0];

			free(v.str);
			return ibfm_err_set(
				err, -EINVAL, "%s",
				named ? "\"cmd\" given twice"
				      : "\"cmd\" must be a command's name");
		}
		*cmd = v.str;
	}
	if (rc)
		return rc;
	skip(&sc);
	if (sc.s != sc.e)
		return ibfm_err_set(err, -EINVAL, "text after the object");
	if (!*cmd)
		return ibfm_err_set(err, -EINVAL, "no \"cmd\"");
	return 0;
}

/* The arguments of the line, after "cmd" was found: into 'r'. */
static int read_args(struct ibfm_req *r, const char *line, size_t len,
		     struct ibfm_err *err)
{
	struct scan sc = { line, line + len, true };
	char key[KEY_MAX];
	struct value v;
	int rc, i;

	take(&sc, '{');
	while (next_member(&sc, key, &v, err) > 0) {
		if (!strcmp(key, "cmd")) {
			free(v.str);
			continue;
		}
		i = ibfm_cmd_arg(r->cmd, key);
		if (i < 0) {
			free(v.str);
			return unknown_arg(r, key, err);
		}
		rc = put(r, (unsigned)i, &v, err);
		if (rc)
			return rc;
	}
	return ibfm_req_check(r, err);
}

int ibfm_req_parse(struct ibfm_req *r, const struct ibfm_cmd *table,
		   const char *line, size_t len, struct ibfm_err *err)
{
	char *cmd;
	int rc = find_cmd(line, len, &cmd, err);

	if (!rc)
		rc = ibfm_req_init(r, table, cmd, err);
	free(cmd);
	return rc ? rc : read_args(r, line, len, err);
}

/*
 * The request as one JSON object, "cmd" first when 'with_cmd', and a
 * newline; malloc'ed, NULL when out of memory.
 */
static char *encode(const struct ibfm_req *r, bool with_cmd)
{
	unsigned i, n = r->cmd ? ibfm_cmd_nargs(r->cmd) : 0;
	struct ibfm_json j;
	char *line = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&line, &len);

	if (!out)
		return NULL;
	ibfm_json_init(&j, out, false);
	ibfm_json_obj_begin(&j, NULL);
	if (with_cmd)
		ibfm_json_str(&j, "cmd", r->cmd->name);
	for (i = 0; i < n; i++) {
		const struct ibfm_arg *a = &r->cmd->args[i];

		if (!r->v[i].set)
			continue;
		if (a->type == IBFM_ARG_STR)
			ibfm_json_str(&j, a->name, r->v[i].str);
		else if (a->type == IBFM_ARG_INT)
			ibfm_json_int(&j, a->name, r->v[i].num);
		else
			ibfm_json_bool(&j, a->name, r->v[i].num != 0);
	}
	ibfm_json_obj_end(&j);
	if (ibfm_json_finish(&j) | fclose(out)) {
		free(line);
		return NULL;
	}
	return line;
}

char *ibfm_req_encode(const struct ibfm_req *r)
{
	return encode(r, true);
}

char *ibfm_req_args_json(const struct ibfm_req *r)
{
	char *args = encode(r, false);

	if (args)
		args[strcspn(args, "\n")] = '\0';
	return args;
}

/* Argument 'name' of type 't', or NULL (a programmer error). */
static const struct ibfm_req_val *arg(const struct ibfm_req *r,
				      const char *name, enum ibfm_arg_type t)
{
	int i = ibfm_cmd_arg(r->cmd, name);

	assert(i >= 0 && r->cmd->args[i].type == t);
	if (i < 0 || r->cmd->args[i].type != t)
		return NULL;
	return &r->v[i];
}

bool ibfm_req_has(const struct ibfm_req *r, const char *name)
{
	int i = ibfm_cmd_arg(r->cmd, name);

	assert(i >= 0);
	return i >= 0 && r->v[i].set;
}

const char *ibfm_req_str(const struct ibfm_req *r, const char *name)
{
	const struct ibfm_req_val *v = arg(r, name, IBFM_ARG_STR);

	return v && v->set ? v->str : NULL;
}

long long ibfm_req_int(const struct ibfm_req *r, const char *name,
		       long long absent)
{
	const struct ibfm_req_val *v = arg(r, name, IBFM_ARG_INT);

	return v && v->set ? v->num : absent;
}

bool ibfm_req_bool(const struct ibfm_req *r, const char *name, bool absent)
{
	const struct ibfm_req_val *v = arg(r, name, IBFM_ARG_BOOL);

	return v && v->set ? v->num != 0 : absent;
}
