/* toll_ffi_ext: the Python floor of `toll ffi` (binding "ext"), a C extension
   module built by toll with toll_ffi.c compiled in. null() makes one call
   into the C side; sum(b) and receipt(b) take any object with the buffer
   protocol (bytes) without copying it; sum_str(s) and receipt_str(s) take a
   str, read by PyUnicode_AsUTF8AndSize (the way an extension reads text:
   the UTF-8 is made once and cached in the str, and an ASCII str's is its
   own bytes). METH_NOARGS and METH_O are CPython's cheapest calling
   conventions, so this is the least a call from Python into C can cost.
   callback(f, n) has toll_ffi_callback call the Python callable f back n
   times, each by PyObject_CallNoArgs (vectorcall); an exception stops the
   upcalls and is raised. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "toll_ffi.h"

static PyObject *ext_null(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    toll_ffi_null();
    Py_RETURN_NONE;
}

typedef uint64_t (*touch_fn)(const uint8_t *, size_t);

static PyObject *on_buffer(PyObject *arg, touch_fn f) {
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t s = f((const uint8_t *)b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return PyLong_FromUnsignedLongLong(s);
}

static PyObject *on_str(PyObject *arg, touch_fn f) {
    Py_ssize_t n;
    const char *p = PyUnicode_AsUTF8AndSize(arg, &n);
    if (!p) return NULL;
    return PyLong_FromUnsignedLongLong(f((const uint8_t *)p, (size_t)n));
}

static PyObject *ext_sum(PyObject *self, PyObject *arg) {
    (void)self;
    return on_buffer(arg, toll_ffi_sum);
}

static PyObject *ext_receipt(PyObject *self, PyObject *arg) {
    (void)self;
    return on_buffer(arg, toll_ffi_receipt);
}

static PyObject *ext_sum_str(PyObject *self, PyObject *arg) {
    (void)self;
    return on_str(arg, toll_ffi_sum);
}

static PyObject *ext_receipt_str(PyObject *self, PyObject *arg) {
    (void)self;
    return on_str(arg, toll_ffi_receipt);
}

/* One upcall: f(), unless an earlier one raised. */
struct upcall {
    PyObject *f;
    int failed;
};

static void call_python(void *ctx) {
    struct upcall *u = ctx;
    if (u->failed) return;
    PyObject *r = PyObject_CallNoArgs(u->f);
    if (!r) u->failed = 1;
    Py_XDECREF(r);
}

static PyObject *ext_callback(PyObject *self, PyObject *args) {
    (void)self;
    struct upcall u = {NULL, 0};
    unsigned long long n;
    if (!PyArg_ParseTuple(args, "OK", &u.f, &n)) return NULL;
    toll_ffi_callback(call_python, &u, (uint64_t)n);
    if (u.failed) return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"null", ext_null, METH_NOARGS, "toll_ffi_null()"},
    {"sum", ext_sum, METH_O, "toll_ffi_sum(buffer, len(buffer))"},
    {"receipt", ext_receipt, METH_O, "toll_ffi_receipt(buffer, len(buffer))"},
    {"sum_str", ext_sum_str, METH_O, "toll_ffi_sum of a str's UTF-8"},
    {"receipt_str", ext_receipt_str, METH_O, "toll_ffi_receipt of a str's UTF-8"},
    {"callback", ext_callback, METH_VARARGS, "toll_ffi_callback calling f() back n times"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "toll_ffi_ext", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_toll_ffi_ext(void) { return PyModule_Create(&module); }
