// The "ffm" binding of `ffi`: java.lang.foreign (final since JDK 22) calls
// toll_ffi_null and toll_ffi_sum in $TOLL_FFI_DIR/libtoll_ffi.so through
// downcall handles. The handles are static finals, so the JIT treats them as
// constants and compiles invokeExact to the call itself. "pinned": the bytes
// in an off-heap MemorySegment made once, the form FFM passes without
// copying; "copied": a byte[] copied into a confined Arena each call
// (arena.allocateFrom), the arena closed after; "string": a String made a
// NUL-terminated UTF-8 segment in a confined Arena each call; "callback":
// toll_ffi_callback calls Ffi.upcall back through an upcall stub made once.
// Ffi.java finds this class by name: a JDK older than 22 leaves it out.
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;

public final class FfiFfm {
    private static Path lib;

    /** Where the library is; the handles are made on first use of Handles. */
    public static void load(Path path) {
        lib = path;
        Handles.NULL.type(); // resolves the symbols now, so a missing library is reported by hello
    }

    private static final class Handles {
        static final MethodHandle NULL, SUM, RECEIPT, CALLBACK;
        /** Ffi.upcall(MemorySegment ctx) as a C function pointer, made once. */
        static final MemorySegment UPCALL;

        static {
            Linker linker = Linker.nativeLinker();
            SymbolLookup syms = SymbolLookup.libraryLookup(lib, Arena.global());
            NULL = linker.downcallHandle(syms.find("toll_ffi_null").orElseThrow(), FunctionDescriptor.ofVoid());
            FunctionDescriptor touch = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
            SUM = linker.downcallHandle(syms.find("toll_ffi_sum").orElseThrow(), touch);
            RECEIPT = linker.downcallHandle(syms.find("toll_ffi_receipt").orElseThrow(), touch);
            CALLBACK = linker.downcallHandle(syms.find("toll_ffi_callback").orElseThrow(),
                    FunctionDescriptor.ofVoid(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
            try {
                MethodHandle up = MethodHandles.lookup().findStatic(FfiFfm.class, "upcall",
                        MethodType.methodType(void.class, MemorySegment.class));
                UPCALL = linker.upcallStub(up, FunctionDescriptor.ofVoid(ValueLayout.ADDRESS), Arena.global());
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** {ns, last return} of reps calls with n bytes of the pattern passed `pass`. */
    public static long[] run(long n, long seed, long reps, String pass, boolean receipt) throws Throwable {
        return switch (pass) {
            case "callback" -> callbacks(n, reps);
            case "copied" -> copied(Ffi.pattern(Math.toIntExact(n), seed), reps, receipt);
            case "string" -> string(Ffi.text(Math.toIntExact(n), seed), reps, receipt);
            default -> pinned(n, seed, reps, receipt);
        };
    }

    /** What the upcall stub calls: Ffi's count, as JNI's upcall counts. */
    static void upcall(MemorySegment ctx) {
        Ffi.upcalls++;
    }

    private static long[] callbacks(long n, long reps) throws Throwable {
        long t0 = System.nanoTime();
        for (long r = 0; r < reps; r++) {
            Ffi.upcalls = 0;
            Handles.CALLBACK.invokeExact(Handles.UPCALL, MemorySegment.NULL, n);
        }
        return new long[] {System.nanoTime() - t0, Ffi.upcalls};
    }

    // Each loop calls a static final handle, which the JIT compiles to the
    // call itself; a handle held in a local would be an indirect invoke.

    private static long[] pinned(long n, long seed, long reps, boolean receipt) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(Math.max(n, 1));
            for (long i = 0; i < n; i++) seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + 131L * i));
            long last = 0, t0 = System.nanoTime();
            // One call shape at every n, 0 included (no bytes).
            if (receipt) for (long r = 0; r < reps; r++) last = (long) Handles.RECEIPT.invokeExact(seg, n);
            else for (long r = 0; r < reps; r++) last = (long) Handles.SUM.invokeExact(seg, n);
            return new long[] {System.nanoTime() - t0, last};
        }
    }

    private static long[] copied(byte[] b, long reps, boolean receipt) throws Throwable {
        long n = b.length, last = 0, t0 = System.nanoTime();
        // A loop per function, as pinned's: one call site in the loop, so
        // the JIT inlines the arena and the call and scalar-replaces the
        // arena, as it does in a user's loop of the same call.
        if (receipt) {
            for (long r = 0; r < reps; r++) {
                try (Arena arena = Arena.ofConfined()) {
                    last = (long) Handles.RECEIPT.invokeExact(arena.allocateFrom(ValueLayout.JAVA_BYTE, b), n);
                }
            }
        } else {
            for (long r = 0; r < reps; r++) {
                try (Arena arena = Arena.ofConfined()) {
                    last = (long) Handles.SUM.invokeExact(arena.allocateFrom(ValueLayout.JAVA_BYTE, b), n);
                }
            }
        }
        return new long[] {System.nanoTime() - t0, last};
    }

    private static long[] string(String s, long reps, boolean receipt) throws Throwable {
        long n = s.length(), last = 0, t0 = System.nanoTime(); // ASCII: one byte a character
        if (receipt) {
            for (long r = 0; r < reps; r++) {
                try (Arena arena = Arena.ofConfined()) {
                    last = (long) Handles.RECEIPT.invokeExact(arena.allocateFrom(s), n);
                }
            }
        } else {
            for (long r = 0; r < reps; r++) {
                try (Arena arena = Arena.ofConfined()) {
                    last = (long) Handles.SUM.invokeExact(arena.allocateFrom(s), n);
                }
            }
        }
        return new long[] {System.nanoTime() - t0, last};
    }
}
