// toll's Java worker: the control plane of spec/wire.md on stdin/stdout,
// serving transfers over inherited pipes, unix sockets and loopback TCP, and
// spawning and ringing platform and virtual threads, and calling into C
// (`ffi`, Ffi.java). JDK 21+ (FFM: 22+), standard library only.
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class TollWorker {
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    private static final Map<Integer, InputStream> PIPE_IN = new LinkedHashMap<>();
    private static final Map<Integer, OutputStream> PIPE_OUT = new LinkedHashMap<>();

    public static void main(String[] args) throws Exception {
        Wire.Fault fault = Wire.Fault.parse(System.getenv("TOLL_WORKER_FAULT"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> cmd = parse(line);
            Object op = cmd.get("op");
            if ("exit".equals(op)) break;
            answer(handle(op, cmd, fault));
        }
        OUT.flush();
        System.exit(0);
    }

    static Map<String, Object> handle(Object op, Map<String, Object> cmd, Wire.Fault fault) {
        if (op == null) return refuse("command has no `op` (or is not JSON)");
        switch (op.toString()) {
            case "hello":
                return obj("ok", true, "runtime", "java", "version", Runtime.version().toString(), "wire", 1,
                        "pid", ProcessHandle.current().pid(), "ops", List.of("transfer", "spawn", "ring", "ffi"),
                        "transports", List.of("pipe", "unix", "tcp"), "units", Units.UNITS, "bindings", Ffi.bindings());
            case "transfer":
                return transfer(cmd, fault);
            case "spawn":
            case "ring":
                return units(op.toString(), cmd, fault);
            case "ffi":
                return Ffi.run(cmd);
            default:
                return refuse("unknown op `" + op + "`");
        }
    }

    static Map<String, Object> transfer(Map<String, Object> cmd, Wire.Fault fault) {
        Object transport = cmd.get("transport");
        AutoCloseable close = null;
        InputStream in;
        OutputStream out;
        try {
            if ("pipe".equals(transport)) {
                Object r = cmd.get("read_fd"), w = cmd.get("write_fd");
                if (!(r instanceof Long) || !(w instanceof Long)) return refuse("transfer command lacks `read_fd` or `write_fd`");
                int rfd = ((Long) r).intValue(), wfd = ((Long) w).intValue();
                // The inherited fds, opened once and kept for every pipe transfer.
                in = PIPE_IN.computeIfAbsent(rfd, fd -> open(() -> new FileInputStream("/proc/self/fd/" + fd)));
                out = PIPE_OUT.computeIfAbsent(wfd, fd -> open(() -> new FileOutputStream("/proc/self/fd/" + fd)));
            } else if ("unix".equals(transport)) {
                SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
                ch.connect(UnixDomainSocketAddress.of(String.valueOf(cmd.get("path"))));
                close = ch;
                in = Channels.newInputStream(ch);
                out = Channels.newOutputStream(ch);
            } else if ("tcp".equals(transport)) {
                Socket s = new Socket();
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(String.valueOf(cmd.get("host")), ((Long) cmd.get("port")).intValue()));
                close = s;
                in = s.getInputStream();
                out = s.getOutputStream();
            } else {
                return refuse("unsupported transport `" + transport + "`: this worker speaks pipe, unix, tcp");
            }
        } catch (Exception e) {
            return refuse("cannot connect: " + e);
        }
        answer(obj("ok", true, "event", "ready"));
        try {
            Wire.Served s = new Wire(in).serve(out, fault);
            return obj("ok", true, "event", "done", "frames", s.frames(), "items", s.items());
        } catch (Exception e) {
            return refuse("data channel: " + e.getMessage());
        } finally {
            if (close != null) {
                try {
                    close.close();
                } catch (Exception ignored) {
                    // already gone
                }
            }
        }
    }

    interface Opener<T> {
        T open() throws Exception;
    }

    static <T> T open(Opener<T> o) {
        try {
            return o.open();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    static Map<String, Object> units(String op, Map<String, Object> cmd, Wire.Fault fault) {
        Object n = cmd.get("n"), m = cmd.get("m"), unit = cmd.get("unit");
        if (n instanceof Long nn && fault.exitAt(nn)) Runtime.getRuntime().halt(3);
        if (!Units.UNITS.contains(unit)) return refuse("unknown unit `" + unit + "`: the java worker has thread, virtual-thread");
        try {
            if (op.equals("spawn")) {
                if (!(n instanceof Long nn) || nn < 1) return refuse("spawn needs n of at least 1");
                long[] r = Units.spawn((String) unit, nn.intValue());
                return obj("ok", true, "event", "done", "unit", unit, "n", nn, "made", r[2], "ns", r[0], "mem_kb", r[1],
                        "mem_how", Units.memHow((String) unit));
            }
            if (!(n instanceof Long nn) || !(m instanceof Long mm) || nn < 2 || mm < 1)
                return refuse("a ring needs n of at least 2 and m of at least 1");
            long[] r = Units.ring((String) unit, nn.intValue(), mm);
            return obj("ok", true, "event", "done", "unit", unit, "n", nn, "m", mm, "hops", r[1], "ns", r[0]);
        } catch (Units.Limit e) {
            return obj("ok", false, "limit", true, "created", e.created,
                    "error", "created " + e.created + " of " + n + " units: " + e.getMessage());
        } catch (InterruptedException e) {
            return refuse("interrupted");
        }
    }

    static Map<String, Object> refuse(String msg) {
        System.err.println("toll-worker-java: " + msg);
        return obj("ok", false, "error", msg);
    }

    static Map<String, Object> obj(Object... kv) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put((String) kv[i], kv[i + 1]);
        return m;
    }

    static void answer(Map<String, Object> m) {
        OUT.print(encode(m));
        OUT.print('\n');
        OUT.flush();
    }

    // ---- JSON, just enough for the protocol's flat objects ----

    private static final Pattern MEMBER = Pattern.compile(
            "\\s*\"((?:[^\"\\\\]|\\\\.)*)\"\\s*:\\s*(\"(?:[^\"\\\\]|\\\\.)*\"|-?\\d+(?:\\.\\d+)?(?:[eE][-+]?\\d+)?|true|false|null|\\[[^\\]]*\\])\\s*(,|\\})");

    /** A flat JSON object; an empty map when the line is not one. */
    static Map<String, Object> parse(String line) {
        Map<String, Object> m = new LinkedHashMap<>();
        String s = line.trim();
        if (!s.startsWith("{")) return m;
        Matcher mt = MEMBER.matcher(s);
        int at = 1;
        if (s.substring(1).isBlank() || s.substring(1).trim().equals("}")) return m;
        while (mt.find(at) && mt.start() == at) {
            String v = mt.group(2);
            Object value;
            if (v.startsWith("\"")) value = unescape(v.substring(1, v.length() - 1));
            else if (v.equals("true") || v.equals("false")) value = Boolean.parseBoolean(v);
            else if (v.equals("null") || v.startsWith("[")) value = null;
            else if (v.matches("-?\\d+")) value = Long.parseLong(v);
            else value = Double.parseDouble(v);
            m.put(unescape(mt.group(1)), value);
            at = mt.end();
            if (mt.group(3).equals("}")) break;
        }
        return m;
    }

    static String unescape(String s) {
        return s.replace("\\\"", "\"").replace("\\/", "/").replace("\\n", "\n").replace("\\\\", "\\");
    }

    static String encode(Object v) {
        if (v instanceof Map<?, ?> map) {
            StringBuilder b = new StringBuilder("{");
            for (Map.Entry<?, ?> e : map.entrySet()) {
                if (b.length() > 1) b.append(',');
                b.append(encode(e.getKey().toString())).append(':').append(encode(e.getValue()));
            }
            return b.append('}').toString();
        }
        if (v instanceof List<?> list) {
            StringBuilder b = new StringBuilder("[");
            for (Object x : list) {
                if (b.length() > 1) b.append(',');
                b.append(encode(x));
            }
            return b.append(']').toString();
        }
        if (v instanceof String s) {
            StringBuilder b = new StringBuilder("\"");
            for (char c : s.toCharArray()) {
                if (c == '"' || c == '\\') b.append('\\').append(c);
                else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                else b.append(c);
            }
            return b.append('"').toString();
        }
        return String.valueOf(v);
    }
}
