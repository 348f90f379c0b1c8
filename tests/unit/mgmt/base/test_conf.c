// SPDX-License-Identifier: MIT
/* Tests of mgmt/base/conf.c: ibfmd's configuration file. */
#include "test_common.h"

#include "mgmt/base/conf.h"
#include "mgmt/base/log.h"

static void test_defaults_and_keys(void **state)
{
	struct ibfmd_conf c;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfmd_conf_parse("# nothing\n\n", "f", &c, &err), 0);
	assert_string_equal(c.socket, "/run/ibfm/ibfmd.sock");
	assert_string_equal(c.fabric_file, "/run/ibfm/fabric.topo");
	assert_int_equal(c.sweep_s, 60);
	assert_int_equal(c.light_s, 10);
	assert_true(c.counters);
	assert_string_equal(c.metrics, "127.0.0.1:9105");
	assert_false(c.metrics_set);
	assert_int_equal(c.log_level, IBFMD_LOG_INFO);
	assert_int_equal(c.drain_grace_s, 120);
	assert_string_equal(c.node_name_map, ""); /* the system's, if any */
	assert_int_equal(ibfmd_conf_parse("socket /tmp/x/d.sock\n"
					  "  sweep_interval = 5\n"
					  "light_interval\t0\n"
					  "counters off\n"
					  "metrics off\n"
					  "state_dir /var/lib/ibfm/osm\n"
					  "ca mlx5_0\nca_port 2\n"
					  "log_level debug\n"
					  "drain_grace 5\n"
					  "node_name_map /etc/ibfm/names\n",
					  "f", &c, &err),
			 0);
	assert_string_equal(c.node_name_map, "/etc/ibfm/names");
	assert_int_equal(c.drain_grace_s, 5);
	assert_string_equal(c.socket, "/tmp/x/d.sock");
	assert_string_equal(c.fabric_file, "/tmp/x/fabric.topo");
	assert_int_equal(c.sweep_s, 5);
	assert_int_equal(c.light_s, 0);
	assert_false(c.counters);
	assert_string_equal(c.metrics, "");
	assert_true(c.metrics_set);
	assert_string_equal(c.state_dir, "/var/lib/ibfm/osm");
	assert_string_equal(c.ca, "mlx5_0");
	assert_int_equal(c.ca_port, 2);
	assert_int_equal(c.log_level, IBFMD_LOG_DEBUG);
}

/* Who may use the socket: no group by default, a name or a number. */
static void test_groups(void **state)
{
	struct ibfmd_conf c;
	struct ibfm_err err;

	(void)state;
	assert_int_equal(ibfmd_conf_parse("", "f", &c, &err), 0);
	assert_string_equal(c.read_group, "");
	assert_string_equal(c.admin_group, "");
	assert_int_equal(ibfmd_conf_parse("read_group ibfm\n"
					  "admin_group 4242\n",
					  "f", &c, &err),
			 0);
	assert_string_equal(c.read_group, "ibfm");
	assert_string_equal(c.admin_group, "4242");
}

static void test_errors_name_the_line(void **state)
{
	static const struct {
		const char *text, *msg;
	} bad[] = {
		{ "sweep_interval 0\n",
		  "f:1: sweep_interval: expected a whole number 1..86400" },
		{ "\nlight_interval ten\n",
		  "f:2: light_interval: expected a whole number" },
		{ "light_interval -1\n", "f:1: light_interval: expected" },
		{ "counters yes\n", "f:1: counters: expected on or off" },
		{ "log_level verbose\n",
		  "f:1: log_level: expected err, warn, info or debug" },
		{ "metrics 9105\n", "f:1: metrics: expected HOST:PORT or off" },
		{ "metrics host:99999\n", "f:1: metrics: expected HOST:PORT" },
		{ "metrics :80\n", "f:1: metrics: expected HOST:PORT" },
		{ "nosuch 1\n", "f:1: unknown key \"nosuch\"" },
		{ "socket\n", "f:1: expected \"key value\"" },
		{ "socket a b\n", "f:1: expected \"key value\"" },
		{ "ca_port 255\n",
		  "f:1: ca_port: expected a whole number 0..254" },
	};
	struct ibfmd_conf c = { .sweep_s = 99 };
	struct ibfm_err err;
	char longline[9000];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		assert_int_equal(ibfmd_conf_parse(bad[i].text, "f", &c, &err),
				 -EINVAL);
		if (strncmp(err.msg, bad[i].msg, strlen(bad[i].msg)))
			fail_msg("\"%s\": got \"%s\"", bad[i].text, err.msg);
		assert_int_equal(c.sweep_s, 99); /* nothing of it used */
	}
	memset(longline, 'a', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = '\0';
	assert_int_equal(ibfmd_conf_parse(longline, "f", &c, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "longer than"));
	assert_true(ibfmd_conf_read("/nonexistent/ibfmd.conf", &c, &err) < 0);
	assert_non_null(strstr(err.msg, "cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults_and_keys),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_errors_name_the_line),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
