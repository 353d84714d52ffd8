// spawn and ring (spec/wire.md) with platform and virtual threads: spawned
// threads count down a ready latch and wait on a gate latch; the ring hands
// the token on through a SynchronousQueue per unit.
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.SynchronousQueue;

final class Units {
    static final List<String> UNITS = List.of("thread", "virtual-thread");

    /** Units made before the runtime refused one. */
    static final class Limit extends Exception {
        final long created;

        Limit(long created, Throwable why) {
            super(why.toString());
            this.created = created;
        }
    }

    static Thread.Builder builder(String unit) {
        return unit.equals("virtual-thread") ? Thread.ofVirtual() : Thread.ofPlatform();
    }

    /**
     * The memory figure of spec/wire.md. Virtual threads live on the heap (a
     * parked one's stack is a heap object), and the JVM keeps the heap it has
     * grown, so they are counted as the heap in use after a full collection;
     * platform threads' stacks are the kernel's, counted in the resident set.
     */
    static String memHow(String unit) {
        return unit.equals("virtual-thread") ? "jvm-heap" : "rss";
    }

    static long memoryKb(String unit) {
        if (!unit.equals("virtual-thread")) return rssKb();
        System.gc();
        Runtime r = Runtime.getRuntime();
        return (r.totalMemory() - r.freeMemory()) / 1024;
    }

    static long rssKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) return Long.parseLong(line.split("\\s+")[1]);
            }
        } catch (Exception e) {
            // unreadable: report 0
        }
        return 0;
    }

    /** Returns {ns, mem_kb, made}: made is what the units counted down the ready latch by. */
    static long[] spawn(String unit, int n) throws Limit, InterruptedException {
        Thread.Builder b = builder(unit);
        CountDownLatch ready = new CountDownLatch(n), gate = new CountDownLatch(1);
        Runnable body = () -> {
            ready.countDown();
            try {
                gate.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
        List<Thread> threads = new ArrayList<>(n);
        long m0 = memoryKb(unit), t0 = System.nanoTime();
        try {
            for (int i = 0; i < n; i++) threads.add(b.start(body));
        } catch (OutOfMemoryError e) {
            gate.countDown();
            for (Thread t : threads) t.join();
            throw new Limit(threads.size(), e);
        }
        ready.await();
        long ns = System.nanoTime() - t0, mem = memoryKb(unit) - m0, made = n - ready.getCount();
        gate.countDown();
        for (Thread t : threads) t.join();
        return new long[] {ns, mem, made};
    }

    /** Returns {ns, hops}. */
    static long[] ring(String unit, int n, long m) throws Limit, InterruptedException {
        Thread.Builder b = builder(unit);
        long last = n * m;
        List<SynchronousQueue<Long>> boxes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) boxes.add(new SynchronousQueue<>());
        SynchronousQueue<Long> done = new SynchronousQueue<>();
        List<Thread> threads = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                SynchronousQueue<Long> in = boxes.get(i), out = boxes.get((i + 1) % n);
                threads.add(b.start(() -> {
                    try {
                        for (long k = 0; k < m; k++) {
                            long v = in.take() + 1;
                            if (v == last) {
                                done.put(v);
                                return;
                            }
                            out.put(v);
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
        } catch (OutOfMemoryError e) {
            for (Thread t : threads) t.interrupt();
            for (Thread t : threads) t.join();
            throw new Limit(threads.size(), e);
        }
        long t0 = System.nanoTime();
        boxes.get(0).put(0L);
        long hops = done.take();
        long ns = System.nanoTime() - t0;
        for (Thread t : threads) t.join();
        return new long[] {ns, hops};
    }
}
