/* toll_ffi_ext: the Python floor of `toll ffi` (binding "ext"), a C extension
   module built by toll with toll_ffi.c compiled in. null() and sum(b) each
   make one call into the C side; sum takes any object with the buffer
   protocol (bytes) without copying it. METH_NOARGS and METH_O are CPython's
   cheapest calling conventions, so this is the least a call from Python into
   C can cost. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "toll_ffi.h"

static PyObject *ext_null(PyObject *self, PyObject *unused) {
    (void)self;
    (void)unused;
    toll_ffi_null();
    Py_RETURN_NONE;
}

static PyObject *ext_sum(PyObject *self, PyObject *arg) {
    (void)self;
    Py_buffer b;
    if (PyObject_GetBuffer(arg, &b, PyBUF_SIMPLE) < 0) return NULL;
    uint64_t s = toll_ffi_sum((const uint8_t *)b.buf, (size_t)b.len);
    PyBuffer_Release(&b);
    return PyLong_FromUnsignedLongLong(s);
}

static PyMethodDef methods[] = {
    {"null", ext_null, METH_NOARGS, "toll_ffi_null()"},
    {"sum", ext_sum, METH_O, "toll_ffi_sum(buffer, len(buffer))"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "toll_ffi_ext", NULL, -1, methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_toll_ffi_ext(void) { return PyModule_Create(&module); }
