/* expect_tool.c - the fixture tags for the shell tests (expect.h):
 *   expect get TAG FILE   print the bodies of FILE's TAG lines, one a line
 *                         (exit 1 when it has none)
 *   expect set TAG FILE   replace them with the lines read from stdin */
#include "expect.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "get") && strcmp(argv[1], "set"))) {
		fprintf(stderr, "usage: expect get|set TAG FILE\n");
		return 2;
	}
	const char *tag = argv[2], *path = argv[3];
	if (!strcmp(argv[1], "get")) {
		struct expect_file e;
		if (expect_read(path, &e) < 0) {
			fprintf(stderr, "expect: cannot read %s\n", path);
			return 2;
		}
		int n = expect_count(&e, tag);
		for (int i = 0; i < n; i++)
			printf("%s\n", expect_body(&e, tag, i));
		expect_free(&e);
		return n ? 0 : 1;
	}
	char **lines = NULL, buf[65536];
	int n = 0;
	while (fgets(buf, sizeof(buf), stdin)) {
		buf[strcspn(buf, "\n")] = 0;
		lines = realloc(lines, (size_t)(n + 1) * sizeof(*lines));
		if (!lines || !(lines[n++] = strdup(buf))) {
			fprintf(stderr, "expect: out of memory\n");
			return 2;
		}
	}
	int rc = expect_rewrite(path, tag, (const char *const *)lines, n);
	for (int i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	if (rc < 0) {
		fprintf(stderr, "expect: cannot rewrite %s\n", path);
		return 2;
	}
	return 0;
}
