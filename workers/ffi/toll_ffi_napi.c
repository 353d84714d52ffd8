/* The N-API glue of `toll ffi` (Node binding "napi"): an addon exporting
   null() and sum(buffer), built by toll with plain cc against node's own
   headers (node_api.h), toll_ffi.c compiled in, into toll_ffi_napi.node,
   which the worker loads with require. sum reads a Buffer's own bytes
   (napi_get_buffer_info: no copy) and returns a Number (exact to 2^53).

   Each call runs inside the handle scope node opens around a native
   callback: the values made here (the result) are freed with it. */
#define NAPI_VERSION 8
#include <node_api.h>

#include "toll_ffi.h"

static napi_value null_call(napi_env env, napi_callback_info info) {
    (void)info;
    toll_ffi_null();
    napi_value undefined;
    napi_get_undefined(env, &undefined);
    return undefined;
}

static napi_value sum_call(napi_env env, napi_callback_info info) {
    size_t argc = 1;
    napi_value arg, out;
    void *data;
    size_t len;
    if (napi_get_cb_info(env, info, &argc, &arg, NULL, NULL) != napi_ok || argc < 1 ||
        napi_get_buffer_info(env, arg, &data, &len) != napi_ok) {
        napi_throw_type_error(env, NULL, "sum takes a Buffer");
        return NULL;
    }
    napi_create_double(env, (double)toll_ffi_sum((const uint8_t *)data, len), &out);
    return out;
}

static napi_value init(napi_env env, napi_value exports) {
    napi_property_descriptor fns[] = {
        {"null", NULL, null_call, NULL, NULL, NULL, napi_default, NULL},
        {"sum", NULL, sum_call, NULL, NULL, NULL, napi_default, NULL},
    };
    napi_define_properties(env, exports, 2, fns);
    return exports;
}

NAPI_MODULE(toll_ffi_napi, init)
