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
// string through GetStringUTFChars — on a byte[] or String made once. ffm:
// this file's own downcall handle to toll_ffi_receipt (static final, as the
// JIT wants it): pinned, an off-heap segment of a confined arena made once; copied, a confined
// arena per call holding a copy of the byte[]; string, a confined arena per
// call holding the String as NUL-terminated UTF-8. After WARMUP_MS of calls
// (the JIT compiles the loop), each of TRIALS batches of K calls, K chosen
// in the warm-up so a batch lasts about BATCH_MS, is timed on its own.
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
        long run(long k) throws Throwable;
    }

    static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) b[i] = (byte) (1 + 131L * i);
        return b;
    }

    public static void main(String[] a) throws Throwable {
        String binding = a[0], way = a[1];
        int n = Integer.parseInt(a[2]), trials = Integer.parseInt(a[3]);
        long batchNs = Long.parseLong(a[4]) * 1_000_000L, warmupNs = Long.parseLong(a[5]) * 1_000_000L;
        byte[] b = pattern(n);
        byte[] t = b.clone();
        for (int i = 0; i < n; i++) t[i] = (byte) (1 + (t[i] & 0xff) % 127);
        String s = new String(t, java.nio.charset.StandardCharsets.US_ASCII);
        Batch batch;
        if (binding.equals("jni")) {
            System.load(Path.of(System.getenv("TOLL_FFI_DIR"), "libtoll_ffi_jni.so").toString());
            batch = switch (way) {
                case "copied" -> k -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = Ffi.jniReceiptCopied(b, n);
                    return last;
                };
                case "string" -> k -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = Ffi.jniReceiptString(s);
                    return last;
                };
                default -> k -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = Ffi.jniReceipt(b, n);
                    return last;
                };
            };
        } else {
            // A confined arena's segment, as the worker makes it (a global
            // one skips the owner-thread check each call makes).
            MemorySegment seg = Arena.ofConfined().allocate(Math.max(n, 1));
            MemorySegment.copy(b, 0, seg, ValueLayout.JAVA_BYTE, 0, n);
            batch = switch (way) {
                case "copied" -> k -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) {
                        try (Arena arena = Arena.ofConfined()) {
                            last = (long) RECEIPT.invokeExact(arena.allocateFrom(ValueLayout.JAVA_BYTE, b), (long) n);
                        }
                    }
                    return last;
                };
                case "string" -> k -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) {
                        try (Arena arena = Arena.ofConfined()) {
                            last = (long) RECEIPT.invokeExact(arena.allocateFrom(s), (long) n);
                        }
                    }
                    return last;
                };
                default -> k -> {
                    long last = 0;
                    for (long r = 0; r < k; r++) last = (long) RECEIPT.invokeExact(seg, (long) n);
                    return last;
                };
            };
        }
        // Warm-up: batches doubling until a batch lasts BATCH_MS, then more of
        // that size until WARMUP_MS has passed.
        long k = 1, start = System.nanoTime();
        while (true) {
            long t0 = System.nanoTime();
            sink += batch.run(k);
            long took = System.nanoTime() - t0;
            if (took < batchNs) k = Math.max(k + 1, (long) (k * Math.min(2.0, (double) batchNs / Math.max(took, 1))));
            else if (System.nanoTime() - start >= warmupNs) break;
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < trials; i++) {
            long t0 = System.nanoTime();
            sink += batch.run(k);
            double per = (double) (System.nanoTime() - t0) / k;
            out.append(i == 0 ? "" : ",").append(per);
        }
        System.out.println("{\"binding\":\"" + binding + "\",\"way\":\"" + way + "\",\"n\":" + n
                + ",\"per_call_ns\":[" + out + "],\"sink\":" + (sink & 1) + "}");
    }
}
