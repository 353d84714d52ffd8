/** E5's loop: 64-bit %, +, *4 and /2, n times (n from the command line,
 *  default 10^8, E5's), the result printed so nothing can be skipped. */
public class Loop {
    public static void main(String[] args) {
        long n = args.length > 0 ? Long.parseLong(args[0]) : 100_000_000L;
        long acc = 0;
        for (long i = 0; i < n; i++) {
            acc = (acc + i) % 1000003;
            acc = acc * 4;
            acc = acc / 2;
        }
        System.out.println(acc);
    }
}
