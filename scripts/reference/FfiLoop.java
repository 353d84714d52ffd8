// The reference for `toll ffi`'s Java ways (scripts/bench-ffi): a plain loop
// timed by System.nanoTime, no JMH, calling the same native functions the
// Java worker's ways call, nothing else.
//
//   usage: java --enable-native-access=ALL-UNNAMED -cp CLASSES:DIR FfiLoop
//              BINDING WAY N TRIALS BATCH_MS WARMUP_MS
//   BINDING: jni or ffm; WAY: pinned, copied or string; N: bytes (characters)
//   prints: {"binding":…,"way":…,"n":N,"per_call_ns":[t1,…]}
//
// CLASSES is the Java worker toll compiled (its Ffi class declares the JNI
// natives; their glue, libtoll_ffi_jni.so, and libtoll_ffi.so are in
// $TOLL_FFI_DIR, where toll built them). jni: Ffi's natives — pinned
// through GetPrimitiveArrayCritical, copied through GetByteArrayElements,
// string through GetStringUTFChars — on a byte[] or String made for each
// batch. ffm: this file's own downcall handle to toll_ffi_receipt (static
// final, as the JIT wants it): pinned, an off-heap segment of a confined
// arena made for each batch; copied, a confined arena per call holding a
// copy of the byte[]; string, a confined arena per call holding the String
// as NUL-terminated UTF-8. The value is made afresh (untimed) for each
// batch, as the worker makes it for each trial: a 4 KiB copy's time moves
// with the value (likely where it lies against the buffer C copies it
// into), and a value made once per process is one draw of that where the
// worker's trials are many. After WARMUP_MS of calls (the JIT compiles the loop), each of
// TRIALS batches of K calls, K chosen in the warm-up so a batch lasts about
// BATCH_MS, is timed on its own.
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

public final class FfiLoop {
    static long sink;

    private static final MethodHandle RECEIPT = receipt();

    private static MethodHandle receipt() {
        Path lib = Path.of(System.getenv("TOLL_FFI_DIR"), "libtoll_ffi.so");
        SymbolLookup syms = SymbolLookup.libraryLookup(lib, Arena.global());
        return Linker.nativeLinker().downcallHandle(syms.find("toll_ffi_receipt").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    }

    interface Batch {
        long run(long k, byte[] b, String s, MemorySegment seg) throws Throwable;
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (1 + 131L * i);
        return b;
    }

    static String text(int n) {
        byte[] t = pattern(n);
        for (int i = 0; i < n; i++) t[i] = (byte) (1 + (t[i] & 0xff) % 127);
        return new String(t, java.nio.charset.StandardCharsets.US_ASCII);
    }

    public static void main(String[] a) throws Throwable {
        String binding = a[0], way = a[1];
        int n = Integer.parseInt(a[2]), trials = Integer.parseInt(a[3]);
        long batchNs = Long.parseLong(a[4]) * 1_000_000L, warmupNs = Long.parseLong(a[5]) * 1_000_000L;
        Batch batch;
        if (binding.equals("jni")) {
            System.load(Path.of(System.getenv("TOLL_FFI_DIR"), "libtoll_ffi_jni.so").toString());
            batch = switch (way) {
                case "copied" -> (k, b, s, seg) -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = Ffi.jniReceiptCopied(b, n);
                    return last;
                };
                case "string" -> (k, b, s, seg) -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = Ffi.jniReceiptString(s);
                    return last;
                };
                default -> (k, b, s, seg) -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = Ffi.jniReceipt(b, n);
                    return last;
                };
            };
        } else {
            batch = switch (way) {
                case "copied" -> (k, b, s, seg) -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) {
                        try (Arena arena = Arena.ofConfined()) {
                            last = (long) RECEIPT.invokeExact(arena.allocateFrom(ValueLayout.JAVA_BYTE, b), (long) n);
                        }
                    }
                    return last;
                };
                case "string" -> (k, b, s, seg) -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) {
                        try (Arena arena = Arena.ofConfined()) {
                            last = (long) RECEIPT.invokeExact(arena.allocateFrom(s), (long) n);
                        }
                    }
                    return last;
                };
                default -> (k, b, s, seg) -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = (long) RECEIPT.invokeExact(seg, (long) n);
                    return last;
                };
            };
        }
        // Each batch gets its value made afresh, untimed, as the worker
        // makes it for each trial: a byte[] (and its String), and for FFM's
        // pinned way a confined arena's segment holding it (a global one
        // skips the owner-thread check each call makes).
        Batch timed = batch;
        Batch fresh = (k, b0, s0, seg0) -> {
            byte[] b = pattern(n);
            String s = way.equals("string") ? text(n) : null;
            if (binding.equals("ffm") && way.equals("pinned")) {
                try (Arena arena = Arena.ofConfined()) {
                    MemorySegment seg = arena.allocate(Math.max(n, 1));
                    MemorySegment.copy(b, 0, seg, ValueLayout.JAVA_BYTE, 0, n);
                    return timedRun(timed, k, b, s, seg);
                }
            }
            return timedRun(timed, k, b, s, null);
        };
        // Warm-up: batches doubling until a batch lasts BATCH_MS, then more of
        // that size until WARMUP_MS has passed.
        long k = 1, start = System.nanoTime();
        while (true) {
            long took = fresh.run(k, null, null, null);
            if (took < batchNs) k = Math.max(k + 1, (long) (k * Math.min(2.0, (double) batchNs / Math.max(took, 1))));
            else if (System.nanoTime() - start >= warmupNs) break;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < trials; i++) {
            double per = (double) fresh.run(k, null, null, null) / k;
            out.append(i == 0 ? "" : ",").append(per);
        }
        System.out.println("{\"binding\":\"" + binding + "\",\"way\":\"" + way + "\",\"n\":" + n
                + ",\"per_call_ns\":[" + out + "],\"sink\":" + (sink & 1) + "}");
    }

    /** The ns k calls took; their last return kept in sink. */
    static long timedRun(Batch batch, long k, byte[] b, String s, MemorySegment seg) throws Throwable {
        long t0 = System.nanoTime();
        sink += batch.run(k, b, s, seg);
        return System.nanoTime() - t0;
    }
}
