/* The N-API glue of `toll ffi` (Node binding "napi"): an addon exporting
   null() and sum(buffer), built by toll with plain cc against node's own
   headers (node_api.h), toll_ffi.c compiled in, into toll_ffi_napi.node,
   which the worker loads with require. sum and receipt read a Buffer's own
   bytes (napi_get_buffer_info: no copy); sum_str and receipt_str take a JS
   string and copy its UTF-8 into a malloc'd buffer (napi_get_value_string_utf8,
   asked its length first), freed after. Each returns a Number (exact to 2^53).

   callback(f, n) has toll_ffi_callback call the JS function f back n
   times, each by napi_call_function (with `undefined` as this and no
   arguments); a throw stops the upcalls and is thrown on return.

   Each call runs inside the handle scope node opens around a native
   callback: the values made here (the result) are freed with it. */
#define NAPI_VERSION 8
#include <node_api.h>

#include <stdlib.h>

#include "toll_ffi.h"

typedef uint64_t (*touch_fn)(const uint8_t *, size_t);

static napi_value null_call(napi_env env, napi_callback_info info) {
    (void)info;
    toll_ffi_null();
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    return undefined;
}

static napi_value on_buffer(napi_env env, napi_callback_info info, touch_fn f) {
    size_t argc = 1;
    napi_value arg, out;
    void *data;
    size_t len;
    if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc < 1 ||
        napi_get_buffer_info(env, arg, &data, &len) != napi_ok) {
        napi_throw_type_error(env, NULL, "sum and receipt take a Buffer");
        return NULL;
    }
    napi_create_double(env, (double)f((const uint8_t *)data, len), &out);
    return out;
}

static napi_value on_string(napi_env env, napi_callback_info info, touch_fn f) {
    size_t argc = 1, len, got;
    napi_value arg, out;
    if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc < 1 ||
        napi_get_value_string_utf8(env, arg, NULL, 0, &len) != napi_ok) {
        napi_throw_type_error(env, NULL, "sum_str and receipt_str take a string");
        return NULL;
    }
    char *p = malloc(len + 1);
    if (!p) {
        napi_throw_error(env, NULL, "out of memory");
        return NULL;
    }
    napi_get_value_string_utf8(env, arg, p, len + 1, &got);
    napi_create_double(env, (double)f((const uint8_t *)p, got), &out);
    free(p);
    return out;
}

static napi_value sum_call(napi_env env, napi_callback_info info) { return on_buffer(env, info, toll_ffi_sum); }
static napi_value receipt_call(napi_env env, napi_callback_info info) { return on_buffer(env, info, toll_ffi_receipt); }
static napi_value sum_str(napi_env env, napi_callback_info info) { return on_string(env, info, toll_ffi_sum); }
static napi_value receipt_str(napi_env env, napi_callback_info info) { return on_string(env, info, toll_ffi_receipt); }

/* One upcall: f(), unless an earlier one threw. */
struct upcall {
    napi_env env;
    napi_value f, self;
    int failed;
};

static void call_js(void *ctx) {
    struct upcall *u = ctx;
    napi_value result;
    if (!u->failed && napi_call_function(u->env, u->self, u->f, 0, NULL, &result) != napi_ok) u->failed = 1;
}

static napi_value callback_call(napi_env env, napi_callback_info info) {
    size_t argc = 2;
    napi_value args[2];
    int64_t n;
    struct upcall u = {env, NULL, NULL, 0};
    napi_valuetype type;
    if (napi_get_cb_info(env, info, &argc, args, NULL, NULL) != napi_ok || argc < 2 ||
        napi_typeof(env, args[0], &type) != napi_ok || type != napi_function ||
        napi_get_value_int64(env, args[1], &n) != napi_ok || n < 0) {
        napi_throw_type_error(env, NULL, "callback takes a function and a count");
        return NULL;
    }
    u.f = args[0];
    napi_get_undefined(env, &u.self);
    toll_ffi_callback(call_js, &u, (uint64_t)n);
    return u.self;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_property_descriptor fns[] = {
        {"null", NULL, null_call, NULL, NULL, NULL, napi_default, NULL},
        {"sum", NULL, sum_call, NULL, NULL, NULL, napi_default, NULL},
        {"receipt", NULL, receipt_call, NULL, NULL, NULL, napi_default, NULL},
        {"sum_str", NULL, sum_str, NULL, NULL, NULL, napi_default, NULL},
        {"receipt_str", NULL, receipt_str, NULL, NULL, NULL, napi_default, NULL},
        {"callback", NULL, callback_call, NULL, NULL, NULL, napi_default, NULL},
    };
    napi_define_properties(env, exports, sizeof fns / sizeof fns[0], fns);
    return exports;
}

NAPI_MODULE(toll_ffi_napi, init)
