// `ffi` (spec/wire.md) for the Java worker: reps calls into
// workers/ffi/toll_ffi.c, timed with System.nanoTime. Two bindings, each
// loaded from $TOLL_FFI_DIR, where toll built the C side: "jni", this
// class's native methods (workers/ffi/toll_ffi_jni.c, passed a byte[]), and
// "ffm", java.lang.foreign's downcalls (FfiFfm.java, final since JDK 22 and
// compiled only there, so this class finds it by name).
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

final class Ffi {
    static final String LIB = "libtoll_ffi.so", JNI_LIB = "libtoll_ffi_jni.so";

    static native void jniNull();

    static native long jniSum(byte[] b, int n);

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

    /** FfiFfm.run(n, seed, reps), loaded once: the Method, or why it is not there. */
    static synchronized Object ffm() {
        if (ffmRun == null) {
            try {
                Class<?> c = Class.forName("FfiFfm");
                c.getMethod("load", Path.class).invoke(null, dir().resolve(LIB));
                ffmRun = c.getMethod("run", long.class, long.class, long.class);
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

    static Map<String, Object> run(Map<String, Object> cmd) {
        Object binding = cmd.get("binding");
        if (!(cmd.get("n") instanceof Long n) || !(cmd.get("reps") instanceof Long reps)
                || !(cmd.get("seed") instanceof Long seed) || n < 0 || reps < 1 || seed < 0)
            return TollWorker.refuse("`ffi` needs whole numbers n, reps (at least 1) and seed");
        long[] r;
        if ("jni".equals(binding)) {
            String why = jni();
            if (why != null) return TollWorker.refuse("jni: " + why);
            if (n > Integer.MAX_VALUE - 8)
                return TollWorker.refuse("jni passes a byte[]: at most " + (Integer.MAX_VALUE - 8) + " bytes");
            r = jniCalls(pattern(n.intValue(), seed), reps);
        } else if ("ffm".equals(binding)) {
            if (!(ffm() instanceof Method m)) return TollWorker.refuse("ffm: " + ffm());
            try {
                r = (long[]) m.invoke(null, n, seed, reps);
            } catch (ReflectiveOperationException e) {
                return TollWorker.refuse("ffm: " + (e.getCause() != null ? e.getCause() : e));
            }
        } else {
            return TollWorker.refuse("no binding " + binding + ": the java worker has jni, ffm");
        }
        if (r[1] < 0) return TollWorker.refuse(binding + ": the native side could not read the buffer");
        return TollWorker.obj("ok", true, "event", "done", "binding", binding, "n", n, "reps", reps, "ns", r[0], "sum", r[1]);
    }

    /** {ns, last sum}: the loops do nothing but call. */
    static long[] jniCalls(byte[] b, long reps) {
        // One call shape at every n, 0 included (a sum of no bytes).
        int n = b.length;
        long sum = 0, t0 = System.nanoTime();
        for (long r = 0; r < reps; r++) sum = jniSum(b, n);
        return new long[] {System.nanoTime() - t0, sum};
    }
}
