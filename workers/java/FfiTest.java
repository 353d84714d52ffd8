// The Java worker's `ffi` bindings return spec/vectors/ffi.tsv's sums, and
// spec/vectors/ffi_receipt.tsv's receipts passed every way. The C
// side is built here as toll builds it (cc -O2 -fPIC -shared; the JNI glue
// against this JDK's include directories), then the worker runs as a child
// with TOLL_FFI_DIR set, as toll starts it. Run from the repository root:
//   javac -d DIR workers/java/*.java && java -cp DIR FfiTest
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public final class FfiTest {
    static int passed, failed;

    static void check(boolean ok, String what) {
        if (ok) passed++;
        else {
            failed++;
            System.out.println("FAIL " + what);
        }
    }

    static void cc(Path dir, String out, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(System.getenv().getOrDefault("CC", "cc"), "-O2", "-fPIC", "-shared", "-Wall", "-o",
                dir.resolve(out).toString()));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).inheritIO().start();
        if (p.waitFor() != 0) throw new IllegalStateException("cc failed: " + cmd);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory("toll-ffi-java-");
        String src = "workers/ffi/", home = System.getProperty("java.home");
        cc(dir, Ffi.LIB, src + "toll_ffi.c");
        cc(dir, Ffi.JNI_LIB, "-I" + home + "/include", "-I" + home + "/include/linux", "-I" + src, src + "toll_ffi_jni.c", src + "toll_ffi.c");
        ProcessBuilder pb = new ProcessBuilder(Path.of(home, "bin", "java").toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "TollWorker").redirectError(ProcessBuilder.Redirect.INHERIT);
        pb.environment().put("TOLL_FFI_DIR", dir.toString());
        Process p = pb.start();
        OutputStream in = p.getOutputStream();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String hello = TollWorkerTest.ask(in, out, "{\"op\":\"hello\"}");
        boolean ffm = Runtime.version().feature() >= 22;
        check(hello.contains(ffm ? "\"bindings\":[\"jni\",\"ffm\"]" : "\"bindings\":[\"jni\"]"), "hello " + hello);
        List<String[]> vectors = TollWorkerTest.rows("ffi.tsv");
        check(vectors.size() >= 8, "enough ffi vectors");
        for (String binding : ffm ? new String[] {"jni", "ffm"} : new String[] {"jni"}) {
            for (String[] v : vectors) {
                String a = TollWorkerTest.ask(in, out, "{\"op\":\"ffi\",\"binding\":\"" + binding + "\",\"n\":" + v[1] + ",\"reps\":3,\"seed\":" + v[2] + "}");
                Object sum = TollWorker.parse(a).get("sum"), ns = TollWorker.parse(a).get("ns");
                check(a.startsWith("{\"ok\":true") && sum instanceof Long s && s == Long.parseLong(v[3]) && ns instanceof Long t && t > 0,
                        binding + " " + v[0] + ": " + a);
            }
        }
        List<String[]> receipts = TollWorkerTest.rows("ffi_receipt.tsv");
        check(receipts.size() >= 8, "enough receipt vectors");
        for (String binding : ffm ? new String[] {"jni", "ffm"} : new String[] {"jni"}) {
            for (String pass : new String[] {"pinned", "copied", "string"}) {
                for (String[] v : receipts) {
                    String a = TollWorkerTest.ask(in, out, "{\"op\":\"ffi\",\"binding\":\"" + binding + "\",\"pass\":\"" + pass
                            + "\",\"touch\":\"receipt\",\"n\":" + v[1] + ",\"reps\":3,\"seed\":" + v[2] + "}");
                    long want = Long.parseLong(v["string".equals(pass) ? 4 : 3]);
                    check(TollWorker.parse(a).get("receipt") instanceof Long got && got == want, binding + " " + pass + " " + v[0] + ": " + a);
                }
                String a = TollWorkerTest.ask(in, out, "{\"op\":\"ffi\",\"binding\":\"" + binding + "\",\"pass\":\"" + pass
                        + "\",\"touch\":\"all\",\"n\":1000,\"reps\":1,\"seed\":42}");
                long want = 0;
                for (byte b : "string".equals(pass) ? Ffi.text(1000, 42).getBytes() : Ffi.pattern(1000, 42)) want += b & 0xff;
                check(TollWorker.parse(a).get("sum") instanceof Long got && got == want, binding + " " + pass + " sum: " + a);
            }
        }
        for (String binding : ffm ? new String[] {"jni", "ffm"} : new String[] {"jni"})
            for (long n : new long[] {0, 1, 2, 1000}) {
                String a = TollWorkerTest.ask(in, out, "{\"op\":\"ffi\",\"binding\":\"" + binding
                        + "\",\"pass\":\"callback\",\"n\":" + n + ",\"reps\":3,\"seed\":0}");
                check(TollWorker.parse(a).get("count") instanceof Long got && got == n, binding + " callback " + n + ": " + a);
            }
        check(TollWorkerTest.ask(in, out, "{\"op\":\"ffi\",\"binding\":\"cgo\",\"n\":0,\"reps\":1,\"seed\":0}")
                .equals("{\"ok\":false,\"error\":\"no binding cgo: the java worker has jni, ffm\"}"), "a binding it lacks is refused");
        in.write("{\"op\":\"exit\"}\n".getBytes());
        in.flush();
        check(p.waitFor() == 0, "exits 0");
        for (Path f : Files.list(dir).toList()) Files.delete(f);
        Files.delete(dir);
        System.out.println("java ffi: " + passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }
}
