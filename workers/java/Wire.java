// The data plane of spec/wire.md: request frames in, one 24-byte reply out per
// frame, read through a buffer so a small frame costs one read.
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

final class Wire {
    static final int DATA = 1, END = 2, OK = 0, BAD_FRAME = 1, HEADER = 16, REPLY = 24;
    static final int REQUEST_MAGIC = 0x4C4C4F54, REPLY_MAGIC = 0x524C4F54;

    /** TOLL_WORKER_FAULT: exit:K or garbage:K; kind null means none. */
    record Fault(String kind, long k) {
        static Fault parse(String text) {
            if (text != null && text.matches("(exit|garbage):\\d+")) {
                String[] p = text.split(":");
                return new Fault(p[0], Long.parseLong(p[1]));
            }
            return new Fault(null, 0);
        }

        boolean exitAt(long n) { return "exit".equals(kind) && n >= k; }

        boolean garbageAt(long n) { return "garbage".equals(kind) && n >= k; }
    }

    record Header(boolean magicOk, int kind, int seq, int count) {}

    static Header decodeHeader(ByteBuffer b, int at) {
        return new Header(b.getInt(at) == REQUEST_MAGIC, b.getInt(at + 4), b.getInt(at + 8), b.getInt(at + 12));
    }

    static byte[] encodeReply(int status, int seq, int count, long sum) {
        ByteBuffer r = ByteBuffer.allocate(REPLY).order(ByteOrder.LITTLE_ENDIAN);
        r.putInt(REPLY_MAGIC).putInt(status).putInt(seq).putInt(count).putLong(sum);
        return r.array();
    }

    /** Frames and items a transfer carried. */
    record Served(long frames, long items) {}

    private final InputStream in;
    private final byte[] buf = new byte[256 * 1024];
    private final ByteBuffer view = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
    private int start, end;

    Wire(InputStream in) { this.in = in; }

    /** Make at least n bytes available, keeping what is unconsumed. */
    private void need(int n) throws IOException {
        while (end - start < n) {
            if (start > 0) {
                System.arraycopy(buf, start, buf, 0, end - start);
                end -= start;
                start = 0;
            }
            int r = in.read(buf, end, buf.length - end);
            if (r < 0) throw new IOException("data channel closed before the END frame");
            end += r;
        }
    }

    /** Serve request frames until END or a bad frame. */
    Served serve(OutputStream out, Fault fault) throws IOException {
        long frames = 0, items = 0;
        int expected = 0;
        while (true) {
            need(HEADER);
            Header h = decodeHeader(view, start);
            start += HEADER;
            if (!h.magicOk() || (h.kind() != DATA && h.kind() != END) || h.seq() != expected) {
                write(out, encodeReply(BAD_FRAME, h.seq(), 0, 0));
                return new Served(frames, items);
            }
            if (h.kind() == END) {
                write(out, encodeReply(OK, h.seq(), 0, 0));
                return new Served(frames, items);
            }
            long count = Integer.toUnsignedLong(h.count());
            if (fault.exitAt(count)) Runtime.getRuntime().halt(3);
            long sum = 0, left = count * 4;
            while (left > 0) {
                need(4);
                int take = (int) Math.min(left, (end - start) & ~3);
                for (int i = start; i < start + take; i += 4) sum += view.getInt(i);
                start += take;
                left -= take;
            }
            byte[] reply;
            if (fault.garbageAt(count)) {
                reply = new byte[REPLY];
                java.util.Arrays.fill(reply, (byte) 0xAB);
            } else {
                reply = encodeReply(OK, h.seq(), h.count(), sum);
            }
            write(out, reply);
            frames++;
            items += count;
            expected++;
        }
    }

    private static void write(OutputStream out, byte[] b) throws IOException {
        out.write(b);
        out.flush();
    }
}
