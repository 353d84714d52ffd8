/* The JNI glue of `toll ffi` (Java binding "jni"): the native methods of the
   Java worker's class Ffi, built by toll with toll_ffi.c compiled in into
   libtoll_ffi_jni.so, which the worker loads with System.load.

   Three ways of reading what Java passes, each to the sum or the receipt:
   - pinned: a byte[] through GetPrimitiveArrayCritical. On HotSpot it pins
     the array (or holds the GC off) and gives its own bytes, no copy, the
     cheapest way JNI has to read a Java array; nothing between Get and
     Release may call back into the JVM, and a GC waits until Release.
   - copied: a byte[] through GetByteArrayElements, which copies on HotSpot
     (into a malloc'd buffer), freed by Release.
   - string: a String through GetStringUTFChars (its modified UTF-8, a copy)
     and GetStringUTFLength, released by ReleaseStringUTFChars.
   JNI_ABORT: nothing written back. A NULL from Get means an OutOfMemoryError
   is pending: the method returns -1 and the worker reports it.

   The callback: jniCallback(n) has toll_ffi_callback call the static Java
   method Ffi.upcall() back n times through CallStaticVoidMethod (the thread
   is attached already: it is the caller's; the jmethodID looked up once).
   An exception stops the upcalls and is thrown when the native returns. */
#include <jni.h>

#include "toll_ffi.h"

typedef uint64_t (*touch_fn)(const uint8_t *, size_t);

JNIEXPORT void JNICALL Java_Ffi_jniNull(JNIEnv *env, jclass cls) {
    (void)env;
    (void)cls;
    toll_ffi_null();
}

static jlong pinned(JNIEnv *env, jbyteArray b, jint n, touch_fn f) {
    jbyte *p = (*env)->GetPrimitiveArrayCritical(env, b, NULL);
    if (!p) return -1;
    uint64_t s = f((const uint8_t *)p, (size_t)n);
    (*env)->ReleasePrimitiveArrayCritical(env, b, p, JNI_ABORT);
    return (jlong)s;
}

static jlong copied(JNIEnv *env, jbyteArray b, jint n, touch_fn f) {
    jbyte *p = (*env)->GetByteArrayElements(env, b, NULL);
    if (!p) return -1;
    uint64_t s = f((const uint8_t *)p, (size_t)n);
    (*env)->ReleaseByteArrayElements(env, b, p, JNI_ABORT);
    return (jlong)s;
}

static jlong string(JNIEnv *env, jstring str, touch_fn f) {
    const char *p = (*env)->GetStringUTFChars(env, str, NULL);
    if (!p) return -1;
    uint64_t s = f((const uint8_t *)p, (size_t)(*env)->GetStringUTFLength(env, str));
    (*env)->ReleaseStringUTFChars(env, str, p);
    return (jlong)s;
}

JNIEXPORT jlong JNICALL Java_Ffi_jniSum(JNIEnv *env, jclass cls, jbyteArray b, jint n) {
    (void)cls;
    return pinned(env, b, n, toll_ffi_sum);
}

JNIEXPORT jlong JNICALL Java_Ffi_jniReceipt(JNIEnv *env, jclass cls, jbyteArray b, jint n) {
    (void)cls;
    return pinned(env, b, n, toll_ffi_receipt);
}

JNIEXPORT jlong JNICALL Java_Ffi_jniSumCopied(JNIEnv *env, jclass cls, jbyteArray b, jint n) {
    (void)cls;
    return copied(env, b, n, toll_ffi_sum);
}

JNIEXPORT jlong JNICALL Java_Ffi_jniReceiptCopied(JNIEnv *env, jclass cls, jbyteArray b, jint n) {
    (void)cls;
    return copied(env, b, n, toll_ffi_receipt);
}

JNIEXPORT jlong JNICALL Java_Ffi_jniSumString(JNIEnv *env, jclass cls, jstring s) {
    (void)cls;
    return string(env, s, toll_ffi_sum);
}

JNIEXPORT jlong JNICALL Java_Ffi_jniReceiptString(JNIEnv *env, jclass cls, jstring s) {
    (void)cls;
    return string(env, s, toll_ffi_receipt);
}

struct upcall {
    JNIEnv *env;
    jclass cls;
    jmethodID mid;
};

static void call_java(void *ctx) {
    struct upcall *u = ctx;
    if (!(*u->env)->ExceptionCheck(u->env)) (*u->env)->CallStaticVoidMethod(u->env, u->cls, u->mid);
}

JNIEXPORT void JNICALL Java_Ffi_jniCallback(JNIEnv *env, jclass cls, jlong n) {
    static jmethodID mid;
    if (!mid && !(mid = (*env)->GetStaticMethodID(env, cls, "upcall", "()V"))) return;
    struct upcall u = {env, cls, mid};
    toll_ffi_callback(call_java, &u, (uint64_t)n);
}
