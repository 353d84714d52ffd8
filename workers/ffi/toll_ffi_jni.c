/* The JNI glue of `toll ffi` (Java binding "jni"): the native methods of the
   Java worker's class Ffi, built by toll with toll_ffi.c compiled in into
   libtoll_ffi_jni.so, which the worker loads with System.load.

   The byte[] is reached with GetPrimitiveArrayCritical: on HotSpot it pins
   the array (or holds the GC off) and gives its own bytes, no copy, which is
   the cheapest way JNI has to read a Java array; nothing between Get and
   Release may call back into the JVM. JNI_ABORT: nothing written back. */
#include <jni.h>

#include "toll_ffi.h"

JNIEXPORT void JNICALL Java_Ffi_jniNull(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    toll_ffi_null();
}

JNIEXPORT jlong JNICALL Java_Ffi_jniSum(JNIEnv *env, jclass cls, jbyteArray b, jint n) {
    (void)cls;
    jbyte *p = (*env)->GetPrimitiveArrayCritical(env, b, NULL);
    if (!p) return -1; /* an OutOfMemoryError is pending: the worker reports it */
    uint64_t s = toll_ffi_sum((const uint8_t *)p, (size_t)n);
    (*env)->ReleasePrimitiveArrayCritical(env, b, p, JNI_ABORT);
    return (jlong)s;
}
