/* test_limits.c - the parser's input bounds at sizes a test can reach.
 *
 * HLO_MAX_INSTRUCTIONS (50M) and HLO_MAX_FILE_BYTES (2 GiB) are far beyond
 * what a unit test can generate, so this suite compiles the parser itself
 * with small limits (the amalgamation trick: parse.c is included here, and
 * its definitions take the place of the library's) and checks the checks:
 * the error, its position, and that one below the limit still parses. */
#include "testutil.h"
#undef HLO_MAX_INSTRUCTIONS
#define HLO_MAX_INSTRUCTIONS 1000
#undef HLO_MAX_FILE_BYTES
#define HLO_MAX_FILE_BYTES ((size_t)65536)
#include "../verifier/parse.c"
#include <stdio.h>
#include <unistd.h>

/* A module with n instructions in its entry (a parameter and n-1 negates). */
static char *chain(int n, size_t *len)
{
	size_t cap = 64 + (size_t)n * 48;
	char *s = malloc(cap), *p = s;
	p += sprintf(p, "HloModule m\n\nENTRY main {\n  i0 = f32[] parameter(0)\n");
	for (int i = 1; i < n; i++)
		p += sprintf(p, "  %si%d = f32[] negate(i%d)\n", i == n - 1 ? "ROOT " : "", i, i - 1);
	p += sprintf(p, "}\n");
	*len = (size_t)(p - s);
	return s;
}

static void test_instruction_limit(void **state)
{
	size_t len;
	char *text = chain(HLO_MAX_INSTRUCTIONS, &len);
	struct diag d;
	diag_init(&d, NULL);
	struct hlo_module *m = hlo_parse("<t>", text, len, &d);
	assert_non_null(m);
	assert_int_equal(m->n_instrs, HLO_MAX_INSTRUCTIONS);
	hlo_module_free(m);
	free(text);

	text = chain(HLO_MAX_INSTRUCTIONS + 1, &len);
	diag_init(&d, NULL);
	assert_null(hlo_parse("<t>", text, len, &d));
	assert_int_equal(d.errors, 1);
	assert_string_equal(d.first, "more than 1000 instructions");
	/* the 1001st instruction's name, on line 4 + 1000 */
	assert_int_equal(d.first_pos.line, 4 + HLO_MAX_INSTRUCTIONS);
	assert_int_equal(d.first_pos.col, 8); /* after "  ROOT " */
	free(text);
}

/* Counted over all computations, not per computation. */
static void test_instruction_limit_whole_module(void **state)
{
	char *text = malloc(200000), *p = text;
	p += sprintf(p, "HloModule m\n\n");
	for (int c = 0; c < 2; c++) {
		p += sprintf(p, "%s {\n  a%d = f32[] parameter(0)\n", c ? "ENTRY main" : "f", c);
		for (int i = 1; i < 600; i++)
			p += sprintf(p, "  %sb%d = f32[] negate(%s%d)\n", i == 599 ? "ROOT " : "", i,
				     i == 1 ? "a" : "b", i == 1 ? c : i - 1);
		p += sprintf(p, "}\n\n");
	}
	struct diag d;
	diag_init(&d, NULL);
	assert_null(hlo_parse("<t>", text, (size_t)(p - text), &d));
	assert_string_equal(d.first, "more than 1000 instructions");
	free(text);
}

static void test_file_size_limit(void **state)
{
	size_t n = HLO_MAX_FILE_BYTES + 1;
	char *text = malloc(n);
	memset(text, ' ', n);
	struct diag d;
	diag_init(&d, NULL);
	assert_null(hlo_parse("<t>", text, n, &d));
	assert_string_equal(d.first, "input is larger than 65536 bytes");

	/* the same through a file: refused from its size */
	char path[] = "/tmp/hloproof-limit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, n), (ssize_t)n);
	close(fd);
	diag_init(&d, NULL);
	assert_null(hlo_parse_file(path, &d));
	assert_string_equal(d.first, "file is larger than 65536 bytes");
	/* and through a stream (stdin, pipes): refused once it has read that much */
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	size_t len = 0;
	diag_init(&d, NULL);
	assert_null(read_stream(f, &len, &d, (struct srcpos){path, 0, 0}));
	assert_string_equal(d.first, "input is larger than 65536 bytes");
	fclose(f);
	unlink(path);
	free(text);
}

/* A NUL byte stops a stream read at the chunk that holds it. */
static void test_binary_stops_reading(void **state)
{
	char path[] = "/tmp/hloproof-limit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	char block[4096];
	memset(block, 'x', sizeof(block));
	block[100] = 0;
	for (int i = 0; i < 8; i++)
		assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	struct diag d;
	diag_init(&d, NULL);
	assert_null(hlo_parse_file(path, &d));
	assert_string_equal(d.first, "input contains a NUL byte (binary file?)");
	assert_int_equal(d.first_pos.line, 1);
	assert_int_equal(d.first_pos.col, 101);
	/* longer than the stream's first read (64 KiB) and than the limit */
	for (int i = 8; i < 64; i++)
		assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
	close(fd);
	FILE *f = fopen(path, "rb");
	size_t len = 0;
	diag_init(&d, NULL);
	char *buf = read_stream(f, &len, &d, (struct srcpos){path, 0, 0});
	assert_non_null(buf);
	assert_true(len < 64 * sizeof(block)); /* stopped early */
	assert_non_null(memchr(buf, 0, len));
	free(buf);
	fclose(f);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instruction_limit),
		cmocka_unit_test(test_instruction_limit_whole_module),
		cmocka_unit_test(test_file_size_limit),
		cmocka_unit_test(test_binary_stops_reading),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
