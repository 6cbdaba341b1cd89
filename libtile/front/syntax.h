/* syntax.h - the front end's lexer, AST and parser (lex.c, parse.c, ast.c),
 * private to front/ and to the tests of the lexer and parser.
 *
 * Python's syntax, with nothing of Triton's semantics but the recognition
 * of @jit functions, decorators and imports; sema (front/sema.h) gives the
 * AST its meaning.
 */
#ifndef TILE_FRONT_SYNTAX_H
#define TILE_FRONT_SYNTAX_H

#include "base/base.h"

/* ======================================================================
 * lex.c / parse.c: tokens and AST
 *
 * lex.c turns a whole Python source file into a token array (Python's
 * lexical grammar: NEWLINE/INDENT/DEDENT, implicit and explicit line
 * joining, every string and number form). parse.c builds an AST of the
 * whole module with a full Python statement/expression parser, so host code
 * parses too; a host statement the parser cannot handle is kept as
 * AST_SKIPPED. The module node lists what the front end needs: the @jit
 * functions (with their decorators classified), import aliases and simple
 * module-level assignments, collected from the top level and from the
 * blocks of top-level compound statements (`if`, `else`, `try`, `with`...)
 * but never from inside a def or class; apart, the @jit functions defined
 * in defs' bodies (a kernel built by a factory function), each with the
 * def around it, whose imports are listed on that def. Nothing is
 * evaluated here.
 *
 * Constructs that Python accepts but Triton's kernel language does not
 * (break, continue, chained comparisons, lambda, comprehensions, with,
 * try, star-args, dict/set literals, f-strings, ...) parse normally;
 * ast_check_kernel refuses them with a named diagnostic. Sema calls it on
 * every @jit function it compiles (kernel and helpers), so a broken
 * function that is never compiled does not stop the others, as in Triton.
 * ====================================================================== */

#define LEX_TOKENS(X) \
	X(TOK_EOF, "end of file") X(TOK_NEWLINE, "newline") \
	X(TOK_INDENT, "indent") X(TOK_DEDENT, "dedent") \
	X(TOK_NAME, "name") X(TOK_INT, "integer") X(TOK_FLOAT, "float") \
	X(TOK_IMAG, "imaginary number") X(TOK_STRING, "string") \
	X(TOK_LPAREN, "(") X(TOK_RPAREN, ")") X(TOK_LBRACKET, "[") X(TOK_RBRACKET, "]") \
	X(TOK_LBRACE, "{") X(TOK_RBRACE, "}") X(TOK_COLON, ":") X(TOK_COMMA, ",") \
	X(TOK_SEMI, ";") X(TOK_DOT, ".") X(TOK_ELLIPSIS, "...") X(TOK_ARROW, "->") \
	X(TOK_WALRUS, ":=") X(TOK_AT, "@") X(TOK_ASSIGN, "=") \
	X(TOK_PLUS, "+") X(TOK_MINUS, "-") X(TOK_STAR, "*") X(TOK_SLASH, "/") \
	X(TOK_DSLASH, "//") X(TOK_PERCENT, "%") X(TOK_DSTAR, "**") \
	X(TOK_LSHIFT, "<<") X(TOK_RSHIFT, ">>") X(TOK_AMP, "&") X(TOK_PIPE, "|") \
	X(TOK_CARET, "^") X(TOK_TILDE, "~") \
	X(TOK_LT, "<") X(TOK_GT, ">") X(TOK_LE, "<=") X(TOK_GE, ">=") \
	X(TOK_EQ, "==") X(TOK_NE, "!=") \
	X(TOK_PLUS_ASSIGN, "+=") X(TOK_MINUS_ASSIGN, "-=") X(TOK_STAR_ASSIGN, "*=") \
	X(TOK_SLASH_ASSIGN, "/=") X(TOK_DSLASH_ASSIGN, "//=") X(TOK_PERCENT_ASSIGN, "%=") \
	X(TOK_DSTAR_ASSIGN, "**=") X(TOK_LSHIFT_ASSIGN, "<<=") X(TOK_RSHIFT_ASSIGN, ">>=") \
	X(TOK_AMP_ASSIGN, "&=") X(TOK_PIPE_ASSIGN, "|=") X(TOK_CARET_ASSIGN, "^=") \
	X(TOK_AT_ASSIGN, "@=") \
	X(TOK_FALSE, "False") X(TOK_NONE, "None") X(TOK_TRUE, "True") X(TOK_AND, "and") \
	X(TOK_AS, "as") X(TOK_ASSERT, "assert") X(TOK_ASYNC, "async") X(TOK_AWAIT, "await") \
	X(TOK_BREAK, "break") X(TOK_CLASS, "class") X(TOK_CONTINUE, "continue") \
	X(TOK_DEF, "def") X(TOK_DEL, "del") X(TOK_ELIF, "elif") X(TOK_ELSE, "else") \
	X(TOK_EXCEPT, "except") X(TOK_FINALLY, "finally") X(TOK_FOR, "for") \
	X(TOK_FROM, "from") X(TOK_GLOBAL, "global") X(TOK_IF, "if") X(TOK_IMPORT, "import") \
	X(TOK_IN, "in") X(TOK_IS, "is") X(TOK_LAMBDA, "lambda") X(TOK_NONLOCAL, "nonlocal") \
	X(TOK_NOT, "not") X(TOK_OR, "or") X(TOK_PASS, "pass") X(TOK_RAISE, "raise") \
	X(TOK_RETURN, "return") X(TOK_TRY, "try") X(TOK_WHILE, "while") X(TOK_WITH, "with") \
	X(TOK_YIELD, "yield")

typedef enum tok_kind {
#define LEX_ENUM(k, s) k,
	LEX_TOKENS(LEX_ENUM)
#undef LEX_ENUM
	TOK_KIND_COUNT
} tok_kind;

/* Flags of a TOK_STRING (its prefix). */
enum { TOKF_BYTES = 1u << 0, TOKF_RAW = 1u << 1, TOKF_FSTRING = 1u << 2 };

typedef struct tok {
	src_loc loc;
	const char *text;   /* the token's source text (not NUL-terminated) */
	/* TOK_INT: ival (`big` when it does not fit in 64 bits); TOK_FLOAT,
	 * TOK_IMAG: fval; TOK_NAME: sval, the NUL-terminated name; TOK_STRING:
	 * sval, the decoded contents (escapes processed unless raw; f-strings
	 * are kept as written between the quotes), slen bytes plus a NUL, may
	 * contain NUL bytes. */
	union {
		uint64_t ival;
		double fval;
		const char *sval;
	};
	size_t slen;
	uint32_t len;       /* of text */
	tok_kind kind;
	uint8_t flags;      /* TOKF_* for strings */
	bool big;
} tok;

/* Tokenizes a whole file into an arena array ending with TOK_EOF; emits a
 * diagnostic and returns TILEC_ERR_SYNTAX on the first lexical error. */
tilec_status lex_file(tilec_ctx *ctx, arena *a, const src_file *file, tok **out, int *ntoks);
/* "(", "name", "if", ...: for messages and dumps. */
const char *lex_kind_name(tok_kind k);

/* Expressions, then statements. Field use per kind is listed beside it. */
#define AST_KINDS(X) \
	X(AST_NAME, "name")           /* name.id */ \
	X(AST_INT, "int")             /* lit.ival, lit.big */ \
	X(AST_FLOAT, "float")         /* lit.fval */ \
	X(AST_IMAG, "imag")           /* lit.fval */ \
	X(AST_STR, "str")             /* lit.sval, lit.slen (adjacent literals joined) */ \
	X(AST_BYTES, "bytes")         /* lit.sval, lit.slen */ \
	X(AST_FSTRING, "fstring")     /* lit.sval: the raw text */ \
	X(AST_NONE, "None") X(AST_TRUE, "True") X(AST_FALSE, "False") \
	X(AST_ELLIPSIS, "...") \
	X(AST_ATTR, "attr")           /* attr.value . attr.name */ \
	X(AST_CALL, "call")           /* call.func, call.args, call.kwargs (AST_KEYWORD) */ \
	X(AST_KEYWORD, "kw")          /* keyword.name (NULL for **x), keyword.value */ \
	X(AST_STARRED, "star")        /* unary.operand: *x in calls, targets, displays */ \
	X(AST_SUBSCRIPT, "subscript") /* subscript.value [subscript.index]; x[a, b]: index is a TUPLE */ \
	X(AST_SLICE, "slice")         /* slice.lo : slice.hi : slice.step, each may be NULL */ \
	X(AST_UNARY, "unary")         /* unary.op (NEG POS INVERT NOT), unary.operand */ \
	X(AST_BINARY, "binary")       /* binary.op, binary.left, binary.right */ \
	X(AST_BOOLOP, "boolop")       /* binary.op (AND OR), left-associative */ \
	X(AST_COMPARE, "compare")     /* binary.op (LT ... NOT_IN); a < b < c is \
	                                 COMPARE(<, COMPARE(<, a, b), c) with binary.chained */ \
	X(AST_IFEXP, "ifexp")         /* ifexp.then if ifexp.cond else ifexp.orelse */ \
	X(AST_TUPLE, "tuple")         /* seq.items */ \
	X(AST_LIST, "list")           /* seq.items */ \
	X(AST_SET, "set")             /* seq.items */ \
	X(AST_DICT, "dict")           /* dict.keys, dict.values (a NULL key: **x) */ \
	X(AST_LAMBDA, "lambda")       /* lambda.params, lambda.nparams, lambda.body */ \
	X(AST_NAMED, "walrus")        /* binary.left := binary.right */ \
	X(AST_COMP, "comprehension")  /* comp.kind ('[', '{', 'd' dict, '(' generator), \
	                                 comp.elt, comp.value (dict), comp.clauses */ \
	X(AST_COMP_FOR, "comp-for")   /* for_.target, for_.iter, for_.is_async */ \
	X(AST_COMP_IF, "comp-if")     /* unary.operand */ \
	X(AST_AWAIT, "await")         /* unary.operand */ \
	X(AST_YIELD, "yield")         /* unary.operand (may be NULL) */ \
	X(AST_YIELD_FROM, "yield-from") /* unary.operand */ \
	\
	X(AST_EXPR_STMT, "expr-stmt") /* unary.operand */ \
	X(AST_ASSIGN, "assign")       /* assign.targets (a = b = v: two), assign.value */ \
	X(AST_AUGASSIGN, "augassign") /* augassign.op (ADD ...), .target, .value */ \
	X(AST_ANNASSIGN, "annassign") /* annassign.target, .annotation, .value (may be NULL) */ \
	X(AST_IF, "if")               /* if_.cond, if_.body, if_.orelse (elif: one AST_IF) */ \
	X(AST_FOR, "for")             /* for_.target, for_.iter, for_.body, for_.orelse, for_.is_async */ \
	X(AST_WHILE, "while")         /* while_.cond, while_.body, while_.orelse */ \
	X(AST_RETURN, "return")       /* unary.operand (NULL; a TUPLE for return a, b) */ \
	X(AST_PASS, "pass") X(AST_BREAK, "break") X(AST_CONTINUE, "continue") \
	X(AST_ASSERT, "assert")       /* assert_.cond, assert_.msg (may be NULL) */ \
	X(AST_RAISE, "raise")         /* binary.left (exception, may be NULL), binary.right (from) */ \
	X(AST_DEL, "del")             /* seq.items */ \
	X(AST_GLOBAL, "global")       /* names.names, names.n */ \
	X(AST_NONLOCAL, "nonlocal")   /* names.names, names.n */ \
	X(AST_IMPORT, "import")       /* import_ (see ast_import) */ \
	X(AST_IMPORT_FROM, "import-from") /* import_ */ \
	X(AST_FUNCDEF, "def")         /* func */ \
	X(AST_CLASSDEF, "class")      /* class_.name, .bases, .kwargs, .body, .decorators */ \
	X(AST_WITH, "with")           /* with_.items (AST_WITH_ITEM), with_.body, with_.is_async */ \
	X(AST_WITH_ITEM, "with-item") /* binary.left (context), binary.right (as target, may be NULL) */ \
	X(AST_TRY, "try")             /* try_.body, .handlers (AST_EXCEPT), .orelse, .finalbody */ \
	X(AST_EXCEPT, "except")       /* except_.type (may be NULL), except_.name, except_.body */ \
	X(AST_SKIPPED, "skipped")     /* a host statement skipped by its extent (match, \
	                                 or one the parser could not read); skipped.ntoks */

typedef enum ast_kind {
#define AST_ENUM(k, s) k,
	AST_KINDS(AST_ENUM)
#undef AST_ENUM
	AST_KIND_COUNT
} ast_kind;

typedef enum ast_op {
	AST_OP_ADD, AST_OP_SUB, AST_OP_MUL, AST_OP_DIV, AST_OP_FLOORDIV, AST_OP_MOD,
	AST_OP_POW, AST_OP_LSHIFT, AST_OP_RSHIFT, AST_OP_BITAND, AST_OP_BITOR,
	AST_OP_BITXOR, AST_OP_MATMUL,
	AST_OP_NEG, AST_OP_POS, AST_OP_INVERT, AST_OP_NOT,
	AST_OP_AND, AST_OP_OR,
	AST_OP_LT, AST_OP_LE, AST_OP_GT, AST_OP_GE, AST_OP_EQ, AST_OP_NE,
	AST_OP_IS, AST_OP_IS_NOT, AST_OP_IN, AST_OP_NOT_IN,
	AST_OP_COUNT
} ast_op;

typedef struct ast_node ast_node;

typedef struct ast_list {
	int n;
	ast_node **items;
} ast_list;

typedef enum ast_param_kind {
	AST_PARAM_NORMAL,  /* positional-or-keyword (also positional-only, before `/`) */
	AST_PARAM_KWONLY,  /* after `*` or `*args` */
	AST_PARAM_VARARGS, /* *args */
	AST_PARAM_KWARGS   /* **kwargs */
} ast_param_kind;

typedef struct ast_param {
	src_loc loc;
	const char *name;
	ast_param_kind kind;
	ast_node *annotation; /* NULL, or the expression (a STR for "tl.constexpr") */
	ast_node *default_value; /* NULL when none */
	/* Triton's rule: the annotation's text contains "constexpr"
	 * (tl.constexpr, triton.language.constexpr, "tl.constexpr"). */
	bool is_constexpr;
} ast_param;

/* What a decorator of a def is, after import aliases are resolved
 * (`@triton.jit`, `@jit` from `from triton import jit`, `@tr.jit` after
 * `import triton as tr`; a bare `@jit` is taken as Triton's). */
typedef enum ast_deco_kind {
	AST_DECO_OTHER, AST_DECO_JIT, AST_DECO_AUTOTUNE, AST_DECO_HEURISTICS,
	AST_DECO_CONSTEXPR /* @tl.constexpr, @triton.constexpr_function: a plain function
			      Triton lets kernels call, run at compile time */
} ast_deco_kind;

/* One name bound by an import, resolved to the dotted path it names:
 *   import triton                        -> triton    = "triton"
 *   import triton.language as tl         -> tl        = "triton.language"
 *   import triton.language.extra.libdevice -> triton  = "triton"
 *   from triton import language as tl    -> tl        = "triton.language"
 *   from triton.language.extra import libdevice
 *                                        -> libdevice = "triton.language.extra.libdevice"
 *   from triton.language import *        -> *         = "triton.language"
 * Relative imports keep their leading dots in `path`. */
typedef struct ast_import {
	src_loc loc;
	const char *alias; /* the name bound in the module */
	const char *path;  /* the dotted path it refers to */
	int group;         /* 0: an unconditional module-level import; k: inside the
	                      k-th module-level statement (an if, try, ...); in a
	                      def's list, the same of the def's body */
} ast_import;

typedef struct ast_func {
	src_loc loc;              /* the name after `def` */
	const char *name;
	int nparams;
	ast_param *params;
	ast_node *returns;        /* -> annotation, NULL when none */
	ast_list body;
	ast_list decorators;      /* the decorator expressions, top first */
	ast_deco_kind *deco_kinds; /* one per decorator */
	bool is_async;
	/* Filled from the decorators (pointers into them, NULL when absent):
	 * jit: the @triton.jit decorator (a NAME/ATTR, or a CALL whose kwargs
	 * hold do_not_specialize=, noinline=, ...); autotune: the
	 * @triton.autotune(configs=[triton.Config({...}, num_warps=...,
	 * num_stages=...), ...], key=[...]) CALL, unevaluated (ast_call_kwarg
	 * finds configs/key); heuristics: the @triton.heuristics({...}) CALL
	 * whose args[0] is a DICT of STR keys and LAMBDA values. */
	ast_node *jit;
	ast_node *autotune;
	ast_node *heuristics;
	bool constexpr_fn;        /* decorated @tl.constexpr or @triton.constexpr_function */
	/* A def in another def's body (through its compound statements, not
	 * through a class): that def, whose names this one sees as Python's
	 * closures do; NULL at module level. */
	struct ast_func *outer;
	/* The imports of this def's own body (not of defs or classes inside
	 * it), in source order, grouped as the module's are. */
	int nimports;
	ast_import *imports;
} ast_func;

/* A module-level `NAME = expr` or `NAME: ann = expr`, unevaluated. */
typedef struct ast_global {
	src_loc loc;
	const char *name;
	ast_node *annotation; /* NULL when none */
	ast_node *value;
	int group;            /* as an import's: 0 unconditional, k inside the k-th
	                         module-level statement */
	ast_node *stmt;       /* the assignment statement */
} ast_global;

struct ast_node {
	ast_kind kind;
	/* The node's first token; but an operator node (unary, binary, boolop,
	 * compare, ifexp, walrus): its operator, and a call, attribute or
	 * subscript: the start of the expression it applies to, as Python's
	 * col_offset. */
	src_loc loc;
	union {
		struct { const char *id; } name;
		struct { uint64_t ival; bool big; double fval; const char *sval; size_t slen; } lit;
		struct { ast_node *value; const char *name; } attr;
		struct { ast_node *func; ast_list args, kwargs; } call;
		struct { const char *name; ast_node *value; } keyword;
		struct { ast_node *value, *index; } subscript;
		struct { ast_node *lo, *hi, *step; } slice;
		struct { ast_op op; ast_node *operand; } unary;
		struct { ast_op op; ast_node *left, *right; bool chained; } binary;
		struct { ast_node *cond, *then, *orelse; } ifexp;
		struct { ast_list items; } seq;
		struct { ast_list keys, values; } dict;
		struct { int nparams; ast_param *params; ast_node *body; } lambda;
		struct { int kind; ast_node *elt, *value; ast_list clauses; } comp;
		struct { ast_list targets; ast_node *value; } assign;
		struct { ast_op op; ast_node *target, *value; } augassign;
		struct { ast_node *target, *annotation, *value; } annassign;
		struct { ast_node *cond; ast_list body, orelse; } if_;
		struct { ast_node *target, *iter; ast_list body, orelse; bool is_async; } for_;
		struct { ast_node *cond; ast_list body, orelse; } while_;
		struct { ast_node *cond, *msg; } assert_;
		struct { int n; const char **names; } names;
		struct { int n; ast_import *names; } import_;
		ast_func *func;
		struct { const char *name; ast_list bases, kwargs, body, decorators; } class_;
		struct { ast_list items, body; bool is_async; } with_;
		struct { ast_list body, handlers, orelse, finalbody; } try_;
		struct { ast_node *type; const char *name; ast_list body; } except_;
		struct { int ntoks; } skipped;
	};
};

typedef struct ast_module {
	const src_file *file;
	ast_list body;       /* every top-level statement */
	int nfuncs;
	ast_func **funcs;    /* @jit functions, in source order */
	int nimports;
	ast_import *imports; /* in source order; a later binding of an alias wins */
	int nglobals;
	ast_global *globals; /* in source order; a later assignment wins */
	int nhost_funcs;
	ast_func **host_funcs; /* the module-level defs without @jit */
	int nnested;
	ast_func **nested;     /* @jit functions defined in other defs' bodies, in source order */
} ast_module;

/* Lexes and parses a file. TILEC_ERR_SYNTAX (with a diagnostic) when the
 * file is not valid Python in a part the front end reads: a lexical
 * error anywhere, a syntax error in a @jit function. */
tilec_status parse_module(tilec_ctx *ctx, arena *a, const src_file *file, ast_module **out);
/* The last @jit function of that name, NULL when none. */
ast_func *ast_find_func(const ast_module *m, const char *name);
/* A kernel by name: the module-level @jit function, else the last @jit
 * function of that name defined in a def's body. */
ast_func *ast_find_kernel(const ast_module *m, const char *name);
/* Refuses what Triton's kernel language does not accept in a @jit
 * function's parameters and body, each with a named diagnostic at its
 * location; TILEC_ERR_UNSUPPORTED when there was one (all are reported). */
tilec_status ast_check_kernel(tilec_ctx *ctx, const ast_func *f);
/* The value of keyword argument `name` of a CALL node, NULL when absent. */
ast_node *ast_call_kwarg(const ast_node *call, const char *name);
const char *ast_kind_name(ast_kind k);
/* "+", "not in", ... */
const char *ast_op_name(ast_op op);
/* S-expression dumps, stable for golden tests. */
void ast_dump(strbuf *sb, const ast_node *n);
void ast_dump_func(strbuf *sb, const ast_func *f);
void ast_dump_module(strbuf *sb, const ast_module *m);

#endif
