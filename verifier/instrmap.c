/* instrmap.c - instructions by (computation, name) (instrmap.h). */
#include "instrmap.h"
#include "xalloc.h"
#include <stdlib.h>
#include <string.h>

static uint64_t hash(const char *comp, const char *name)
{
	uint64_t h = 1469598103934665603ull;
	for (const char *p = comp; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	h = (h ^ 0x2f) * 1099511628211ull;
	for (const char *p = name; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ull;
	return h;
}

void instr_map_build(struct instr_map *M, const struct hlo_module *m)
{
	M->cap = 64;
	while (M->cap < 2 * (size_t)m->n_instrs + 2)
		M->cap *= 2;
	M->v = xcalloc(M->cap, sizeof(*M->v));
	for (int32_t c = 0; c < m->n_comps; c++)
		for (int32_t i = 0; i < m->comps[c]->n_instrs; i++) {
			struct hlo_instruction *x = m->comps[c]->instrs[i];
			size_t j = hash(x->parent->name, x->name) & (M->cap - 1);
			while (M->v[j])
				j = (j + 1) & (M->cap - 1);
			M->v[j] = x;
		}
}

struct hlo_instruction *instr_map_find(const struct instr_map *M, const char *comp, const char *name)
{
	for (size_t j = hash(comp, name) & (M->cap - 1);; j = (j + 1) & (M->cap - 1)) {
		struct hlo_instruction *y = M->v[j];
		if (!y)
			return NULL;
		if (!strcmp(y->name, name) && !strcmp(y->parent->name, comp))
			return y;
	}
}

void instr_map_free(struct instr_map *M)
{
	free(M->v);
	M->v = NULL;
	M->cap = 0;
}
