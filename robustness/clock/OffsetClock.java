// OffsetClock: a clock for Apache Cassandra 5.0 whose wall time runs at an
// offset read from a file, so a test can skew one node's clock while it runs.
//
// Cassandra reads its wall and monotonic time through the interface
// org.apache.cassandra.utils.Clock; Clock.Global builds the implementation
// named by the system property cassandra.clock (a public no-argument
// constructor). Write timestamps, TTL expiry (nowInSeconds) and Paxos ballots
// all come from currentTimeMillis(), so an offset here is a server clock skew
// as the lock sees it. nanoTime() stays the host's monotonic clock: a wall
// clock step does not move CLOCK_MONOTONIC either.
//
// The file (system property lockstep.clock.file) holds one line:
//   <offset_ms>                        a fixed offset, e.g. 4000 or -2500
//   strobe <offset_ms> <period_ms>     alternate between 0 and offset_ms
//                                      every period_ms (a flapping clock)
// A missing or empty file means offset 0. A daemon thread re-reads the file
// every 20 ms; a line that does not parse keeps the previous setting and is
// reported once on stderr. Compiled by scripts/cassandra with the JDK's
// javac against cassandra-all (never committed as a .class or jar).
package lockstep.robustness;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;

public final class OffsetClock implements org.apache.cassandra.utils.Clock {
    private static final long POLL_MS = 20;

    private final Path file;
    private volatile long offsetMs;   // fixed offset, or the strobe amplitude
    private volatile long periodMs;   // 0: fixed; > 0: strobe period
    private volatile String lastBad = "";

    public OffsetClock() {
        String f = System.getProperty("lockstep.clock.file");
        file = (f == null || f.isEmpty()) ? null : Paths.get(f);
        reload();
        if (file != null) {
            Thread t = new Thread(this::poll, "lockstep-offset-clock");
            t.setDaemon(true);
            t.start();
        }
    }

    private void poll() {
        for (;;) {
            try {
                Thread.sleep(POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
            reload();
        }
    }

    private void reload() {
        if (file == null) {
            return;
        }
        String line;
        try {
            line = new String(Files.readAllBytes(file), StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            line = "";
        } catch (Exception e) {
            return; // transient (being rewritten): keep the previous setting
        }
        try {
            if (line.isEmpty()) {
                periodMs = 0;
                offsetMs = 0;
                return;
            }
            String[] w = line.split("\\s+");
            if (w.length == 1) {
                long o = Long.parseLong(w[0]);
                periodMs = 0;
                offsetMs = o;
            } else if (w.length == 3 && w[0].equals("strobe")) {
                long o = Long.parseLong(w[1]);
                long p = Long.parseLong(w[2]);
                if (p <= 0) {
                    throw new NumberFormatException("strobe period must be > 0");
                }
                offsetMs = o;
                periodMs = p;
            } else {
                throw new NumberFormatException("want '<offset_ms>' or 'strobe <offset_ms> <period_ms>'");
            }
        } catch (NumberFormatException e) {
            if (!line.equals(lastBad)) {
                lastBad = line;
                System.err.println("OffsetClock: ignoring " + file + ": '" + line + "': " + e.getMessage());
            }
        }
    }

    /** The offset in effect now, in milliseconds. */
    public long offsetMillis() {
        long p = periodMs;
        long o = offsetMs;
        if (p == 0) {
            return o;
        }
        long phase = (System.nanoTime() / 1_000_000L / p) & 1L;
        return phase == 0 ? 0 : o;
    }

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long currentTimeMillis() {
        return System.currentTimeMillis() + offsetMillis();
    }
}
