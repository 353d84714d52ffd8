/** E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
 *  default 10^8, E5's), the result printed so nothing can be skipped.
 *  A second argument of 6/3 runs E5's variant, *6 and /3 instead; each
 *  loop has its constants written in, as E5's had, so the JIT sees them. */
public class Loop {
    static long loop42(long n) {
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc = (acc + i) % 1000003;
            acc = acc * 4;
            acc = acc / 2;
        }
        return acc;
    }

    static long loop63(long n) {
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc = (acc + i) % 1000003;
            acc = acc * 6;
            acc = acc / 3;
        }
        return acc;
    }

    public static void main(String[] args) {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 100_000_000L;
        String variant = args.length > 1 ? args[1] : "4/2";
        long acc;
        if (variant.equals("4/2")) {
            acc = loop42(n);
        } else if (variant.equals("6/3")) {
            acc = loop63(n);
        } else {
            System.err.println("loop: the variant is 4/2 (E5's loop) or 6/3, not " + variant);
            System.exit(2);
            return;
        }
        System.out.println(acc);
    }
}
