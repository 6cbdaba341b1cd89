/* sema_import.c - @jit helpers and constants from other Python files.
 *
 * `from .utils import helper`, `from mypkg.ops import helper`, `import
 * mypkg.ops as ops` (then `ops.helper`) name modules that are not Triton's:
 * they are found as Python would find them in a source tree. A relative
 * module (leading dots) is looked up from the directory of the file that
 * imports it, one directory up per dot after the first; an absolute one
 * from the directory of the kernel's file, then along the search paths
 * (`-I DIR`, fe_spec.include_dirs), as `a/b.py` or `a/b/__init__.py`. A
 * found file is parsed once per specialization and kept; a name taken from
 * it is looked up in that module (its @jit functions, its own imports, its
 * constant globals), and a helper defined there is inlined with that module
 * as its scope (sema_inline switches to the module the function belongs
 * to). A module is named internally by its file: "@" and the path. When no
 * file is found the error names the module and every path tried.
 */
#include "front/sema.h"

#include <stdio.h>
#include <string.h>

static bool readable(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f)
		fclose(f);
	return f != NULL;
}

/* The directory part of path ("" for a bare name), with a trailing '/'. */
static const char *dir_of(arena *a, const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? arena_strndup(a, path, (size_t)(slash - path + 1)) : "";
}

bool sema_is_user_module(const char *path)
{
	if (path[0] == '@' || path[0] == '.')
		return true;
	size_t root = strcspn(path, ".");
	return !((root == 6 && !strncmp(path, "triton", 6)) || (root == 4 && !strncmp(path, "math", 4)));
}

/* "a.b" -> "a/b" */
static const char *as_dirs(arena *a, const char *dotted)
{
	char *p = arena_strdup(a, dotted);
	for (char *q = p; q && *q; q++)
		if (*q == '.')
			*q = '/';
	return p;
}

/* The file of module `path` imported from the current module, or NULL
 * after a diagnostic naming the paths tried. */
static const char *find_module(sema *s, src_loc loc, const char *path)
{
	if (path[0] == '@')
		return path + 1;
	const char *from = s->m->file->path;
	strbuf tried;
	sb_init(&tried);
	const char *bases[18];
	int nb = 0;
	const char *rest = path;
	if (path[0] == '.') {
		int dots = 0;
		while (rest[0] == '.')
			rest++, dots++;
		const char *d = dir_of(s->a, from);
		for (int i = 1; i < dots && d; i++) { /* one level up per extra dot */
			const char *parent = arena_printf(s->a, "%s..", d);
			d = parent ? arena_printf(s->a, "%s/", parent) : NULL;
		}
		bases[nb++] = d;
	} else {
		bases[nb++] = dir_of(s->a, s->root->file->path);
		for (int i = 0; i < s->ninclude_dirs && nb < 18; i++)
			bases[nb++] = arena_printf(s->a, "%s/", s->include_dirs[i]);
	}
	const char *rel = as_dirs(s->a, rest);
	for (int i = 0; i < nb; i++) {
		for (int k = 0; k < 2 && bases[i] && rel; k++) {
			const char *p = arena_printf(s->a, k ? "%s%s/__init__.py" : "%s%s.py", bases[i], rel);
			if (!p)
				break;
			if (readable(p)) {
				sb_free(&tried);
				return p;
			}
			sb_printf(&tried, "%s%s", tried.len ? ", " : "", p);
		}
	}
	sema_error(s, loc, TILEC_ERR_SEMANTIC, "cannot find module `%s` imported by %s: tried %s%s", path, from,
		   sb_str(&tried), path[0] == '.' ? "" : " (add search paths with -I DIR)");
	sb_free(&tried);
	return NULL;
}

/* The parsed module of file `file`, loaded once. */
static const fe_module *module_at(sema *s, src_loc loc, const char *file)
{
	for (int i = 0; i < s->nmods; i++)
		if (!strcmp(s->mods[i]->file->path, file))
			return s->mods[i];
	if (!strcmp(s->root->file->path, file))
		return s->root;
	fe_module *m;
	if (s->nmods == 32) {
		sema_error(s, loc, TILEC_ERR_UNSUPPORTED, "more than 32 imported modules are not supported");
		return NULL;
	}
	if (fe_load(s->ctx, s->a, file, &m) != TILEC_OK) {
		if (s->status == TILEC_OK)
			s->status = TILEC_ERR_SEMANTIC;
		diag_note(s->ctx, loc, "while importing %s", file);
		return NULL;
	}
	s->mods[s->nmods++] = m;
	return m;
}

/* Whether fn is one of m's module-level or nested @jit functions or
 * module-level plain defs. */
static bool defines(const fe_module *m, const ast_func *fn)
{
	const ast_module *am = m->ast;
	for (int i = 0; i < am->nfuncs; i++)
		if (am->funcs[i] == fn)
			return true;
	for (int i = 0; i < am->nnested; i++)
		if (am->nested[i] == fn)
			return true;
	for (int i = 0; i < am->nhost_funcs; i++)
		if (am->host_funcs[i] == fn)
			return true;
	return false;
}

/* A def found in none (a plain def in a factory's body) is the current
 * module's, where the factory's names were looked up. */
const fe_module *sema_module_of(const sema *s, const ast_func *fn)
{
	if (defines(s->m, fn))
		return s->m;
	for (int k = -1; k < s->nmods; k++) {
		const fe_module *m = k < 0 ? s->root : s->mods[k];
		if (defines(m, fn))
			return m;
	}
	return s->m;
}

bool sema_user_attr(sema *s, src_loc loc, const char *path, const char *name, sv *out)
{
	const char *file = find_module(s, loc, path);
	const fe_module *m = file ? module_at(s, loc, file) : NULL;
	if (!m)
		return false;
	/* a submodule of a package: `from mypkg import ops` */
	if (!strcmp(file + strlen(file) - 12 > file ? file + strlen(file) - 12 : file, "/__init__.py") ||
	    !strcmp(file, "__init__.py")) {
		const char *sub = arena_printf(s->a, "%s%s.py", dir_of(s->a, file), name);
		const char *pkg = arena_printf(s->a, "%s%s/__init__.py", dir_of(s->a, file), name);
		bool defined = ast_find_func(m->ast, name) != NULL;
		if (!defined && sub && readable(sub)) {
			out->kind = SV_MODULE;
			out->s = arena_printf(s->a, "@%s", sub);
			return out->s != NULL;
		}
		if (!defined && pkg && readable(pkg)) {
			out->kind = SV_MODULE;
			out->s = arena_printf(s->a, "@%s", pkg);
			return out->s != NULL;
		}
	}
	/* the name as that module sees it; a module's attribute may be a
	 * plain function, which Triton calls at compile time */
	const fe_module *saved = s->m;
	sema_scope empty = {0}, *scope = s->scope;
	const ast_func *encl = s->encl;
	bool host = s->host;
	s->m = m;
	s->scope = &empty;
	s->encl = NULL;
	s->host = true;
	bool ok = sema_lookup(s, loc, name, out);
	s->m = saved;
	s->scope = scope;
	s->encl = encl;
	s->host = host;
	if (!ok)
		diag_note(s->ctx, loc, "looking up `%s` in %s", name, file);
	return ok;
}

bool sema_user_module(sema *s, src_loc loc, const char *path, sv *out)
{
	const char *file = find_module(s, loc, path);
	if (!file)
		return false;
	out->kind = SV_MODULE;
	out->s = arena_printf(s->a, "@%s", file);
	return out->s != NULL || sema_error(s, loc, TILEC_ERR_NOMEM, "out of memory");
}
