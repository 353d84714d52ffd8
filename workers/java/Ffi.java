// `ffi` (spec/wire.md) for the Java worker: reps calls into
// workers/ffi/toll_ffi.c, timed with System.nanoTime. Two bindings, each
// loaded from $TOLL_FFI_DIR, where toll built the C side: "jni", this
// class's native methods (workers/ffi/toll_ffi_jni.c), and "ffm",
// java.lang.foreign's downcalls (FfiFfm.java, final since JDK 22 and
// compiled only there, so this class finds it by name). Each passes the
// value three ways: "pinned" (JNI: a byte[] in a critical section; FFM: an
// off-heap segment made once), "copied" (JNI: GetByteArrayElements; FFM: a
// byte[] copied into a confined arena each call), "string" (a String:
// GetStringUTFChars; arena.allocateFrom(String)), to toll_ffi_sum (touch
// "all") or toll_ffi_receipt. "callback" goes the other way: C calls the
// static method upcall() back n times (JNI: CallStaticVoidMethod; FFM: an
// upcall stub), which counts them.
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

final class Ffi {
    static final String LIB = "libtoll_ffi.so", JNI_LIB = "libtoll_ffi_jni.so";

    static native void jniNull();

    static native long jniSum(byte[] b, int n);

    static native long jniReceipt(byte[] b, int n);

    static native long jniSumCopied(byte[] b, int n);

    static native long jniReceiptCopied(byte[] b, int n);

    static native long jniSumString(String s);

    static native long jniReceiptString(String s);

    static native void jniCallback(long n);

    /** Upcalls counted since the last callback call began. */
    static long upcalls;

    /** What C calls back: counts itself. */
    static void upcall() {
        upcalls++;
    }

    /** The bindings this worker can call now, in toll's order. */
    static List<String> bindings() {
        List<String> ok = new ArrayList<>();
        if (System.getenv("TOLL_FFI_DIR") == null) return ok; // nothing to load: no cost to other families' hello
        if (jni() == null) ok.add("jni");
        if (ffm() instanceof Method) ok.add("ffm");
        return ok;
    }

    private static String jniWhy;
    private static boolean jniTried;

    /** Loads the JNI glue once: null when loaded, else why not. */
    static synchronized String jni() {
        if (!jniTried) {
            jniTried = true;
            try {
                System.load(dir().resolve(JNI_LIB).toString());
            } catch (Throwable e) {
                jniWhy = e.toString();
            }
        }
        return jniWhy;
    }

    private static Object ffmRun;

    /** FfiFfm.run(n, seed, reps, pass, receipt), loaded once: the Method, or why it is not there. */
    static synchronized Object ffm() {
        if (ffmRun == null) {
            try {
                Class<?> c = Class.forName("FfiFfm");
                c.getMethod("load", Path.class).invoke(null, dir().resolve(LIB));
                ffmRun = c.getMethod("run", long.class, long.class, long.class, String.class, boolean.class);
            } catch (ClassNotFoundException e) {
                ffmRun = "this worker was compiled by a JDK older than 22 (no java.lang.foreign)";
            } catch (java.lang.reflect.InvocationTargetException e) {
                ffmRun = e.getCause().toString();
            } catch (Throwable e) {
                ffmRun = e.toString();
            }
        }
        return ffmRun;
    }

    static Path dir() {
        String d = System.getenv("TOLL_FFI_DIR");
        if (d == null) throw new IllegalStateException("TOLL_FFI_DIR is not set: toll sets it to where it built " + LIB);
        return Path.of(d);
    }

    /** Byte i = (seed + 131·i) mod 256 (spec/wire.md). */
    static byte[] pattern(int n, long seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (seed + 131L * i);
        return b;
    }

    /** The string way's text: character i = 1 + (pattern byte mod 127), ASCII without NUL. */
    static String text(int n, long seed) {
        byte[] b = pattern(n, seed);
        for (int i = 0; i < n; i++) b[i] = (byte) (1 + (b[i] & 0xff) % 127);
        return new String(b, java.nio.charset.StandardCharsets.US_ASCII);
    }

    static Map<String, Object> run(Map<String, Object> cmd) {
        Object binding = cmd.get("binding");
        if (!(cmd.get("n") instanceof Long n) || !(cmd.get("reps") instanceof Long reps)
                || !(cmd.get("seed") instanceof Long seed) || n < 0 || reps < 1 || seed < 0)
            return TollWorker.refuse("`ffi` needs whole numbers n, reps (at least 1) and seed");
        Object pass = cmd.getOrDefault("pass", "pinned"), touch = cmd.getOrDefault("touch", "all");
        if (!List.of("pinned", "copied", "string", "callback").contains(pass) || !List.of("all", "receipt").contains(touch))
            return TollWorker.refuse(binding + " passes pinned, copied or string, or calls back, and touches all or receipt, not " + pass + " and " + touch);
        boolean callback = "callback".equals(pass);
        boolean receipt = "receipt".equals(touch);
        long[] r;
        if ("jni".equals(binding)) {
            String why = jni();
            if (why != null) return TollWorker.refuse("jni: " + why);
            if (callback) r = jniCallbacks(n, reps);
            else if (n > Integer.MAX_VALUE - 8)
                return TollWorker.refuse("jni passes a byte[]: at most " + (Integer.MAX_VALUE - 8) + " bytes");
            else r = "string".equals(pass) ? jniString(text(n.intValue(), seed), reps, receipt)
                    : jniCalls(pattern(n.intValue(), seed), reps, "copied".equals(pass), receipt);
        } else if ("ffm".equals(binding)) {
            if (!(ffm() instanceof Method m)) return TollWorker.refuse("ffm: " + ffm());
            try {
                r = (long[]) m.invoke(null, n, seed, reps, pass, receipt);
            } catch (ReflectiveOperationException e) {
                return TollWorker.refuse("ffm: " + (e.getCause() != null ? e.getCause() : e));
            }
        } else {
            return TollWorker.refuse("no binding " + binding + ": the java worker has jni, ffm");
        }
        if (r[1] < 0) return TollWorker.refuse(binding + ": the native side could not read the buffer");
        return TollWorker.obj("ok", true, "event", "done", "binding", binding, "n", n, "reps", reps, "ns", r[0],
                callback ? "count" : receipt ? "receipt" : "sum", r[1]);
    }

    /** {ns, the last call's count} of reps calls each calling upcall() back n times. */
    static long[] jniCallbacks(long n, long reps) {
        long t0 = System.nanoTime();
        for (long r = 0; r < reps; r++) {
            upcalls = 0;
            jniCallback(n);
        }
        return new long[] {System.nanoTime() - t0, upcalls};
    }

    /** {ns, last return} of a byte[] passed pinned or copied: the loops do nothing but call. */
    static long[] jniCalls(byte[] b, long reps, boolean copied, boolean receipt) {
        // One call shape at every n, 0 included (no bytes).
        int n = b.length;
        long last = 0, t0 = System.nanoTime();
        if (copied && receipt) for (long r = 0; r < reps; r++) last = jniReceiptCopied(b, n);
        else if (copied) for (long r = 0; r < reps; r++) last = jniSumCopied(b, n);
        else if (receipt) for (long r = 0; r < reps; r++) last = jniReceipt(b, n);
        else for (long r = 0; r < reps; r++) last = jniSum(b, n);
        return new long[] {System.nanoTime() - t0, last};
    }

    /** {ns, last return} of a String passed: GetStringUTFChars each call. */
    static long[] jniString(String s, long reps, boolean receipt) {
        long last = 0, t0 = System.nanoTime();
        if (receipt) for (long r = 0; r < reps; r++) last = jniReceiptString(s);
        else for (long r = 0; r < reps; r++) last = jniSumString(s);
        return new long[] {System.nanoTime() - t0, last};
    }
}
