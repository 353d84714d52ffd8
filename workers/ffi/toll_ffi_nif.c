/* The NIF of `toll ffi` (Erlang binding "nif"): toll_ffi:null/0 and
   toll_ffi:sum/1, built by toll with erl_nif.h from the OTP install,
   toll_ffi.c compiled in, into toll_ffi_nif.so, which the worker's toll_ffi
   module loads with erlang:load_nif.

   null and sum run on a normal scheduler (no ERL_NIF_DIRTY_JOB_* flag): the
   cheapest call, and the right one for work under a millisecond. sum_dirty
   is the same function on a dirty CPU scheduler (binding "nif-dirty"), where
   work over a millisecond belongs: the calling process moves to a dirty
   scheduler thread and back, a switch of threads each call. sum and
   receipt read a binary's own bytes (enif_inspect_binary: no copy: the
   pinned way); sum_list and receipt_list take a list of bytes and flatten
   it into a new binary each call (enif_inspect_iolist_as_binary: the
   copied way).

   A NIF cannot call Erlang code, so it has no callback: send_self(N) has
   toll_ffi_callback call a C function back N times that sends the calling
   process the atom `upcall` (enif_send, the message copied into its
   mailbox), which the process then receives: the nearest thing, measured
   as such. */
#include <erl_nif.h>

#include "toll_ffi.h"

static ERL_NIF_TERM atom_ok, atom_upcall;

static int load(ErlNifEnv *env, void **priv, ERL_NIF_TERM info) {
    (void)priv;
    (void)info;
    atom_ok = enif_make_atom(env, "ok"); /* made once: an atom lookup per call would be timed */
    atom_upcall = enif_make_atom(env, "upcall");
    return 0;
}

static ERL_NIF_TERM null_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)env;
    (void)argc;
    (void)argv;
    toll_ffi_null();
    return atom_ok;
}

typedef uint64_t (*touch_fn)(const uint8_t *, size_t);

static ERL_NIF_TERM on_binary(ErlNifEnv *env, ERL_NIF_TERM arg, touch_fn f) {
    ErlNifBinary b;
    if (!enif_inspect_binary(env, arg, &b)) return enif_make_badarg(env);
    return enif_make_uint64(env, f(b.data, b.size));
}

static ERL_NIF_TERM on_list(ErlNifEnv *env, ERL_NIF_TERM arg, touch_fn f) {
    ErlNifBinary b;
    if (!enif_inspect_iolist_as_binary(env, arg, &b)) return enif_make_badarg(env);
    return enif_make_uint64(env, f(b.data, b.size));
}

static ERL_NIF_TERM sum_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)argc;
    return on_binary(env, argv[0], toll_ffi_sum);
}

static ERL_NIF_TERM receipt_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)argc;
    return on_binary(env, argv[0], toll_ffi_receipt);
}

static ERL_NIF_TERM sum_list_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)argc;
    return on_list(env, argv[0], toll_ffi_sum);
}

static ERL_NIF_TERM receipt_list_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)argc;
    return on_list(env, argv[0], toll_ffi_receipt);
}

struct upcall {
    ErlNifEnv *env;
    ErlNifPid self;
    int failed;
};

static void send_one(void *ctx) {
    struct upcall *u = ctx;
    if (!u->failed && !enif_send(u->env, &u->self, NULL, atom_upcall)) u->failed = 1;
}

static ERL_NIF_TERM send_self_nif(ErlNifEnv *env, int argc, const ERL_NIF_TERM argv[]) {
    (void)argc;
    struct upcall u = {env, {0}, 0};
    ErlNifUInt64 n;
    if (!enif_get_uint64(env, argv[0], &n) || !enif_self(env, &u.self)) return enif_make_badarg(env);
    toll_ffi_callback(send_one, &u, n);
    return u.failed ? enif_make_badarg(env) : atom_ok;
}

static ErlNifFunc funcs[] = {
    {"null", 0, null_nif, 0},
    {"sum", 1, sum_nif, 0},
    {"sum_dirty", 1, sum_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"receipt", 1, receipt_nif, 0},
    {"receipt_dirty", 1, receipt_nif, ERL_NIF_DIRTY_JOB_CPU_BOUND},
    {"sum_list", 1, sum_list_nif, 0},
    {"receipt_list", 1, receipt_list_nif, 0},
    {"send_self", 1, send_self_nif, 0},
};

ERL_NIF_INIT(toll_ffi, funcs, load, NULL, NULL, NULL)
