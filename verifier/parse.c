/* parse.c - placeholder until the parser lands (issue 2). */
#include "ir.h"

struct hlo_module *hlo_parse(const char *file, const char *text, size_t len, struct diag *d)
{
	error_at(d, (struct srcpos){file, 0, 0}, "parser not implemented yet");
	return NULL;
}

struct hlo_module *hlo_parse_file(const char *path, struct diag *d)
{
	return hlo_parse(path, "", 0, d);
}

void hlo_module_free(struct hlo_module *m)
{
}
