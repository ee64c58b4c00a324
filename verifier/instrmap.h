/* instrmap.h - a module's instructions by (computation, name), for code that
 * matches two versions of one module (a rewritten module and the module as
 * given): hlo_find_instruction scans a computation, this is a hash. */
#ifndef HLOPROOF_INSTRMAP_H
#define HLOPROOF_INSTRMAP_H
#include "ir.h"

struct instr_map {
	size_t cap;
	struct hlo_instruction **v;
};

/* Every instruction of m (heap memory: instr_map_free). */
void instr_map_build(struct instr_map *M, const struct hlo_module *m);
/* The instruction named `name` in the computation named `comp`, or NULL. */
struct hlo_instruction *instr_map_find(const struct instr_map *M, const char *comp, const char *name);
/* The instruction named as x (of another module) is, or NULL. */
static inline struct hlo_instruction *instr_map_twin(const struct instr_map *M, const struct hlo_instruction *x)
{
	return x ? instr_map_find(M, x->parent->name, x->name) : NULL;
}
void instr_map_free(struct instr_map *M);

#endif
