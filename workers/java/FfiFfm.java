// The "ffm" binding of `ffi`: java.lang.foreign (final since JDK 22) calls
// toll_ffi_null and toll_ffi_sum in $TOLL_FFI_DIR/libtoll_ffi.so through
// downcall handles. The handles are static finals, so the JIT treats them as
// constants and compiles invokeExact to the call itself; the bytes are an
// off-heap MemorySegment, the form FFM passes without copying. Ffi.java
// finds this class by name: a JDK older than 22 leaves it out.
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

public final class FfiFfm {
    private static Path lib;

    /** Where the library is; the handles are made on first use of Handles. */
    public static void load(Path path) {
        lib = path;
        Handles.NULL.type(); // resolves the symbols now, so a missing library is reported by hello
    }

    private static final class Handles {
        static final MethodHandle NULL, SUM;

        static {
            Linker linker = Linker.nativeLinker();
            SymbolLookup syms = SymbolLookup.libraryLookup(lib, Arena.global());
            NULL = linker.downcallHandle(syms.find("toll_ffi_null").orElseThrow(), FunctionDescriptor.ofVoid());
            SUM = linker.downcallHandle(syms.find("toll_ffi_sum").orElseThrow(),
                    FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
        }
    }

    /** {ns, last sum} of reps calls with an n-byte segment of the pattern. */
    public static long[] run(long n, long seed, long reps) throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(Math.max(n, 1));
            for (long i = 0; i < n; i++) seg.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + 131L * i));
            long sum = 0, t0 = System.nanoTime();
            // One call shape at every n, 0 included (a sum of no bytes).
            for (long r = 0; r < reps; r++) sum = (long) Handles.SUM.invokeExact(seg, n);
            return new long[] {System.nanoTime() - t0, sum};
        }
    }
}
