// The Java worker's own test: spec/vectors, then the worker end to end as a
// child process. Run from the repository root (JDK 21+):
//   javac -d DIR workers/java/*.java && java -cp DIR TollWorkerTest
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

public final class TollWorkerTest {
    static int passed, failed;
    static final HexFormat HEX = HexFormat.of();

    static void check(boolean ok, String what) {
        if (ok) passed++;
        else {
            failed++;
            System.out.println("FAIL " + what);
        }
    }

    static List<String[]> rows(String name) throws Exception {
        List<String[]> out = new ArrayList<>();
        for (String l : Files.readAllLines(Path.of(System.getProperty("vectors", "spec/vectors"), name)))
            if (!l.isBlank() && !l.startsWith("#")) out.add(l.split("\t"));
        return out;
    }

    /** Reads at most n bytes per call. */
    static InputStream chunked(byte[] b, int n) {
        return new ByteArrayInputStream(b) {
            @Override
            public synchronized int read(byte[] buf, int off, int len) {
                return super.read(buf, off, Math.min(len, n));
            }
        };
    }

    public static void main(String[] args) throws Exception {
        List<String[]> frames = rows("frames.tsv");
        check(frames.size() >= 10, "enough frame vectors");
        for (String[] r : frames) {
            byte[] b = HEX.parseHex(r[8]);
            if (r[1].equals("request")) {
                ByteBuffer v = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                Wire.Header h = Wire.decodeHeader(v, 0);
                StringBuilder items = new StringBuilder();
                for (int i = 16; i + 4 <= b.length; i += 4) items.append(items.length() > 0 ? "," : "").append(v.getInt(i));
                check(h.magicOk() && h.kind() == (r[2].equals("data") ? 1 : 2) && h.seq() == Integer.parseUnsignedInt(r[4])
                        && h.count() == Integer.parseUnsignedInt(r[5]) && (items.length() == 0 ? "-" : items.toString()).equals(r[7]), r[0]);
            } else {
                byte[] enc = Wire.encodeReply(r[3].equals("ok") ? 0 : 1, Integer.parseUnsignedInt(r[4]), Integer.parseUnsignedInt(r[5]), Long.parseLong(r[6]));
                check(HEX.formatHex(enc).equals(r[8]), r[0]);
            }
        }
        for (String[] r : rows("sessions.tsv")) {
            for (int n : new int[] {1, 7, 1 << 20}) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try {
                    new Wire(chunked(HEX.parseHex(r[1]), n)).serve(out, new Wire.Fault(null, 0));
                } catch (java.io.IOException e) {
                    // a session that ends early: what was written is what counts
                }
                check(HEX.formatHex(out.toByteArray()).equals(r[2]), r[0] + " in chunks of " + n);
            }
        }
        check(Wire.Fault.parse("exit:7").exitAt(7) && !Wire.Fault.parse("exit:x").exitAt(99), "faults parse");
        Map<String, Object> cmd = TollWorker.parse("{\"op\": \"ring\", \"n\":7, \"ok\":true, \"path\":\"/a \\\"b\\\"\"}");
        check(cmd.get("op").equals("ring") && cmd.get("n").equals(7L) && cmd.get("path").equals("/a \"b\""), "json parse " + cmd);
        endToEnd();
        System.out.println("java worker: " + passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    static void endToEnd() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "TollWorker")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        OutputStream in = p.getOutputStream();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String hello = ask(in, out, "{\"op\":\"hello\"}");
        check(hello.contains("\"runtime\":\"java\"") && hello.contains("\"units\":[\"thread\",\"virtual-thread\"]"), "hello " + hello);
        for (String unit : new String[] {"thread", "virtual-thread"}) {
            String s = ask(in, out, "{\"op\":\"spawn\",\"unit\":\"" + unit + "\",\"n\":300}");
            String how = unit.equals("thread") ? "rss" : "jvm-heap";
            check(s.startsWith("{\"ok\":true,\"event\":\"done\",\"unit\":\"" + unit + "\",\"n\":300,\"made\":300,\"ns\":") && s.contains("\"mem_how\":\"" + how + "\""), "spawn " + s);
            String r = ask(in, out, "{\"op\":\"ring\",\"unit\":\"" + unit + "\",\"n\":7,\"m\":13}");
            check(r.contains("\"hops\":91,"), "ring " + r);
        }
        // Every trial counts the virtual threads' heap, not only the first:
        // the resident set hardly grows once the JVM has grown its heap.
        for (int trial = 1; trial <= 3; trial++) {
            String s = ask(in, out, "{\"op\":\"spawn\",\"unit\":\"virtual-thread\",\"n\":5000}");
            Object kb = TollWorker.parse(s).get("mem_kb");
            check(kb instanceof Long k && k >= 5000 * 200 / 1024, "trial " + trial + ": " + s);
        }
        for (String bad : new String[] {"{\"op\":\"spawn\",\"unit\":\"fiber\",\"n\":5}", "{\"op\":\"ring\",\"unit\":\"thread\",\"n\":1,\"m\":5}",
                "{\"op\":\"transfer\",\"transport\":\"shm\",\"path\":\"/x\"}", "{\"op\":\"nonsense\"}"}) {
            check(ask(in, out, bad).startsWith("{\"ok\":false,\"error\":"), "refuses " + bad);
        }
        in.write("{\"op\":\"exit\"}\n".getBytes());
        in.flush();
        check(p.waitFor() == 0, "exits 0");

        ProcessBuilder pb = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "TollWorker")
                .redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("TOLL_WORKER_FAULT", "exit:100");
        Process g = pb.start();
        BufferedReader gout = new BufferedReader(new InputStreamReader(g.getInputStream(), StandardCharsets.UTF_8));
        check(ask(g.getOutputStream(), gout, "{\"op\":\"spawn\",\"unit\":\"thread\",\"n\":10}").startsWith("{\"ok\":true"), "below K");
        g.getOutputStream().write("{\"op\":\"spawn\",\"unit\":\"thread\",\"n\":100}\n".getBytes());
        g.getOutputStream().flush();
        check(g.waitFor() == 3, "exit:K exits 3");
    }

    static String ask(OutputStream in, BufferedReader out, String line) throws Exception {
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String a = out.readLine();
        return a == null ? "" : a;
    }
}
