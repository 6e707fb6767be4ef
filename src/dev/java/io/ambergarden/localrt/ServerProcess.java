package io.ambergarden.localrt;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The life cycle shared by the local servers: a JVM child process with its own directory, log file
 * and pid file. Subclasses write their config, build the command line and say when the server is
 * ready. {@link #start()} and {@link #stop()} may be called any number of times; the data in the
 * directory survives both.
 *
 * <p>Each server runs in a session (and so a process group) of its own, started through {@code
 * setsid}: a SIGTERM to the launching JVM's group (Ctrl-C, {@code kill -- -PGID}, a process
 * manager) reaches only that JVM, whose shutdown stops its service while the servers still serve,
 * then the servers. The server's main runs inside {@link ParentWatch}, which stops it when the
 * launching JVM is gone, even by SIGKILL.
 */
public abstract class ServerProcess {
  private boolean paused;
  private static final Duration POLL_INTERVAL = Duration.ofMillis(250);
  private static final int TAIL_LINES = 40;
  private static final String RUN_MARKER = "===== localrt: starting ";

  protected final Logger log = LoggerFactory.getLogger(getClass());
  protected final LocalRuntimeOptions options;
  private final Path dir;
  private Process process;

  /** The server's stdin, never written: its EOF tells {@link ParentWatch} this JVM is gone. */
  private OutputStream parentLink;

  private Duration lastStartDuration;
  private Duration lastStopDuration;

  /** Added to the server's environment at each start (e.g. a clock skew's LD_PRELOAD). */
  private volatile Map<String, String> launchEnvironment = Map.of();

  /** Put before {@code java} at each start (e.g. setpriv giving the server a group of its own). */
  private volatile List<String> launchPrefix = List.of();

  /** The thread inside start(), so stop() from another thread can cut a slow boot short. */
  private volatile Thread startingThread;

  protected ServerProcess(LocalRuntimeOptions options, Path dir) {
    this.options = options;
    this.dir = dir;
  }

  /** Human name used in logs and messages, e.g. "Cassandra". */
  protected abstract String name();

  /** The fully qualified main class; also how a stale process of ours is recognised. */
  protected abstract String mainClass();

  /** Ports the server binds, each with a description for the "port taken" message. */
  protected abstract Map<Integer, String> ports();

  /** The address a port is bound on: loopback 127.0.0.1 unless a server says otherwise. */
  protected java.net.InetAddress bindAddress(int port) {
    return Ports.LOOPBACK;
  }

  /** Fails if one of the server's ports is taken. */
  void requirePortsFree() {
    ports()
        .forEach((port, what) -> Ports.requireFree(bindAddress(port), port, name() + " " + what));
  }

  /** Writes config files and prepares storage; called before every start. */
  protected abstract void prepare(String classpath) throws IOException, InterruptedException;

  /** JVM options and program arguments, without java, -cp and the main class. */
  protected abstract List<String> jvmOptions();

  protected abstract List<String> programArguments();

  /** Words run before java, which they exec (e.g. setpriv): what {@link #setLaunchPrefix} set. */
  protected List<String> launchPrefix() {
    return launchPrefix;
  }

  /** Which server pom gives the classpath, and where it is cached. */
  protected abstract MavenClasspath.Spec classpathSpec();

  /** Resolves (or reads the cached) server classpath. */
  protected String classpath() {
    return MavenClasspath.resolve(classpathSpec());
  }

  /**
   * One readiness probe; returns normally when ready, throws anything when not yet. Called
   * repeatedly until the deadline.
   */
  protected abstract void probe() throws Exception;

  /** Called after the last probe, ready or not, to release probe resources. */
  protected void closeProbe() {}

  public Path dir() {
    return dir;
  }

  public Path logFile() {
    return dir.resolve(logFileName());
  }

  protected String logFileName() {
    return name().toLowerCase() + ".log";
  }

  public Path pidFile() {
    return dir.resolve(name().toLowerCase() + ".pid");
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  /** True between {@link #pause()} and {@link #resume()} (or a stop or kill). */
  public synchronized boolean isPaused() {
    return paused && isRunning();
  }

  public synchronized Optional<Long> pid() {
    return isRunning() ? Optional.of(process.pid()) : Optional.empty();
  }

  /**
   * Environment variables the server gets from its next start on (fault injection: {@code
   * LD_PRELOAD} and {@code FAKETIME_*} of a clock skew); empty to start plainly again.
   */
  public void setLaunchEnvironment(Map<String, String> environment) {
    launchEnvironment = Map.copyOf(environment);
  }

  /**
   * A command the server's JVM is started through from its next start on, e.g. {@code setpriv
   * --regid 41003 --clear-groups}, which execs java in the same process (fault injection: a group
   * that iptables can tell apart); empty to start java directly again.
   */
  public void setLaunchPrefix(List<String> prefix) {
    launchPrefix = List.copyOf(prefix);
  }

  /** Resident memory of the server process (VmRSS from /proc), in KiB. */
  public Optional<Long> residentMemoryKb() {
    return pid().flatMap(Procs::residentKb);
  }

  public synchronized Optional<Duration> lastStartDuration() {
    return Optional.ofNullable(lastStartDuration);
  }

  public synchronized Optional<Duration> lastStopDuration() {
    return Optional.ofNullable(lastStopDuration);
  }

  /** True when the data directory has never been used, i.e. the next start is a cold start. */
  protected abstract boolean isFresh();

  /** Starts the server and returns once it is ready; a no-op when it already runs. */
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    Instant t0 = Instant.now();
    boolean cold = isFresh();
    startingThread = Thread.currentThread();
    try {
      Files.createDirectories(dir);
      stopStaleProcess();
      requirePortsFree();
      String classpath = classpath();
      prepare(classpath);
      process = launch(classpath);
      awaitReady(t0.plus(options.startupTimeout()));
    } catch (Exception e) {
      if (process != null) {
        stop(); // never leave a half-started server behind
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        throw failed("start was interrupted", e);
      }
      if (e instanceof RuntimeException re) {
        throw re;
      }
      throw failed("could not be started: " + e, e);
    } finally {
      startingThread = null;
    }
    lastStartDuration = Duration.between(t0, Instant.now());
    log.info(
        "{} ready in {} ms ({} start, pid {}, log {})",
        name(),
        lastStartDuration.toMillis(),
        cold ? "cold" : "warm",
        process.pid(),
        logFile());
  }

  /**
   * SIGSTOP: the server freezes with its sockets open, so clients see a slow server rather than a
   * dead one (fault injection). Undo with {@link #resume()}.
   */
  public synchronized void pause() {
    signal("STOP");
    paused = true;
  }

  /** SIGCONT after {@link #pause()}. */
  public synchronized void resume() {
    signal("CONT");
    paused = false;
  }

  private void signal(String name) {
    if (!isRunning()) {
      throw failed("is not running: cannot send SIG" + name, null);
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).start();
      if (!kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw failed("kill -" + name + " " + process.pid() + " failed", null);
      }
    } catch (IOException e) {
      throw failed("could not run kill -" + name + ": " + e, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed("interrupted while sending SIG" + name, e);
    }
    log.info("{} (pid {}) got SIG{}", name(), process.pid(), name);
  }

  /**
   * SIGKILL (fault injection): no shutdown hook, no flush, no goodbye to peers. The data directory
   * stays, so {@link #start()} brings the server back on it. A no-op when stopped.
   */
  public synchronized void kill() {
    if (process == null) {
      return;
    }
    long pid = process.pid();
    process.destroyForcibly();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        throw failed("survived SIGKILL", null);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw failed("interrupted while waiting for the SIGKILL", e);
    }
    process = null;
    paused = false;
    closeParentLink();
    deletePidFile();
    log.info("{} (pid {}) killed with SIGKILL", name(), pid);
  }

  /** SIGTERM, wait up to the stop deadline, then SIGKILL; descendants too. A no-op when stopped. */
  public void stop() {
    Thread starter = startingThread;
    if (starter != null && starter != Thread.currentThread()) {
      starter.interrupt(); // start() then stops its own process and gives up the lock
    }
    synchronized (this) {
      if (process == null) {
        return;
      }
      Instant t0 = Instant.now();
      if (paused && process.isAlive()) {
        resume(); // a stopped process would only take SIGTERM once continued
      }
      Procs.terminate(process.toHandle(), options.stopTimeout(), name(), log);
      String exit = process.isAlive() ? "still alive!" : "exit code " + process.exitValue();
      process = null;
      closeParentLink();
      lastStopDuration = Duration.between(t0, Instant.now());
      deletePidFile();
      log.info("{} stopped in {} ms ({})", name(), lastStopDuration.toMillis(), exit);
    }
  }

  private Process launch(String classpath) throws IOException {
    List<String> cmd = new ArrayList<>(Procs.newSession());
    cmd.addAll(launchPrefix());
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions());
    cmd.add("-cp");
    cmd.add(classpath + File.pathSeparator + parentWatchClasspath(options.baseDir()));
    cmd.add(ParentWatch.class.getName());
    cmd.add(mainClass());
    cmd.addAll(programArguments());
    // a marker makes each run easy to find in the appended log
    Files.writeString(
        logFile(),
        "\n" + RUN_MARKER + name() + " at " + Instant.now() + " =====\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()));
    pb.environment().putAll(launchEnvironment);
    Process p = pb.start();
    closeParentLink();
    parentLink = p.getOutputStream();
    Files.writeString(pidFile(), Long.toString(p.pid()), StandardCharsets.UTF_8);
    log.info(
        "Started {} (pid {}), waiting up to {} s for it; log: {}",
        name(),
        p.pid(),
        options.startupTimeout().toSeconds(),
        logFile());
    return p;
  }

  /**
   * A directory holding ParentWatch.class alone, for the servers' classpaths (the dev or test
   * classes beside it would bring their logging config). Written once per JVM: servers launch in
   * parallel.
   */
  private static synchronized Path parentWatchClasspath(Path baseDir) throws IOException {
    Path root = baseDir.resolve("parent-watch");
    Path file = root.resolve(ParentWatch.class.getName().replace('.', '/') + ".class");
    byte[] bytes;
    try (InputStream in = ParentWatch.class.getResourceAsStream("ParentWatch.class")) {
      bytes = in.readAllBytes();
    }
    if (!Files.isRegularFile(file) || !Arrays.equals(Files.readAllBytes(file), bytes)) {
      Files.createDirectories(file.getParent());
      Path tmp = Files.createTempFile(file.getParent(), "ParentWatch", ".tmp");
      Files.write(tmp, bytes);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    return root;
  }

  private void closeParentLink() {
    if (parentLink != null) {
      try {
        parentLink.close();
      } catch (IOException e) {
        // the server is gone already
      }
      parentLink = null;
    }
  }

  /** Runs a short-lived helper JVM on the server classpath (e.g. Kafka's storage format). */
  protected void runTool(
      String classpath,
      List<String> jvmOptions,
      String mainClass,
      List<String> args,
      Duration timeout)
      throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(jvmOptions);
    cmd.add("-cp");
    cmd.add(classpath);
    cmd.add(mainClass);
    cmd.addAll(args);
    Process p =
        new ProcessBuilder(cmd)
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
            .start();
    p.getOutputStream().close();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw failed(
            mainClass + " " + args + " did not finish within " + timeout.toSeconds() + " s", null);
      }
    } finally {
      p.destroyForcibly(); // no-op when it exited; kills it on timeout or interrupt
    }
    if (p.exitValue() != 0) {
      throw failed(mainClass + " " + args + " failed with exit code " + p.exitValue(), null);
    }
  }

  private void awaitReady(Instant deadline) throws InterruptedException {
    Exception lastProbeFailure = null;
    try {
      while (true) {
        if (!process.isAlive()) {
          throw failed("exited with code " + process.exitValue() + " during startup", null);
        }
        try {
          probe();
          return;
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          lastProbeFailure = e;
        }
        if (Instant.now().isAfter(deadline)) {
          throw failed(
              "was not ready within "
                  + options.startupTimeout().toSeconds()
                  + " s (last probe: "
                  + lastProbeFailure
                  + ")",
              new TimeoutException());
        }
        // the next probe, or earlier if the process dies meanwhile
        process.waitFor(POLL_INTERVAL.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
      }
    } finally {
      closeProbe();
    }
  }

  /**
   * A previous run that was killed (kill -9, IDE stop button) leaves its server running. If the pid
   * file names a live process that is our server for this directory, stop it first, so no orphan
   * survives and the ports are free again.
   */
  private void stopStaleProcess() throws IOException {
    Path pidFile = pidFile();
    if (!Files.isRegularFile(pidFile)) {
      return;
    }
    String text = Files.readString(pidFile).trim();
    try {
      long pid = Long.parseLong(text);
      Optional<ProcessHandle> handle = ProcessHandle.of(pid).filter(ProcessHandle::isAlive);
      if (handle.isPresent() && Procs.isOurServer(pid, mainClass(), dir)) {
        log.warn(
            "Found a stale {} (pid {}) from an earlier run on {}; stopping it", name(), pid, dir);
        Procs.terminate(handle.get(), options.stopTimeout(), name(), log);
      }
    } catch (NumberFormatException e) {
      log.warn("Ignoring unreadable pid file {}: '{}'", pidFile, text);
    }
    deletePidFile();
  }

  /** Stops a stale server of this directory left by a killed run, if any (used by `stop`). */
  public synchronized void stopStale() {
    try {
      stopStaleProcess();
    } catch (IOException e) {
      throw failed("could not read " + pidFile() + ": " + e.getMessage(), e);
    }
  }

  /** True if this instance or a stale process of an earlier run holds the directory. */
  public synchronized boolean isDirInUse() {
    if (isRunning()) {
      return true;
    }
    try {
      if (!Files.isRegularFile(pidFile())) {
        return false;
      }
      long pid = Long.parseLong(Files.readString(pidFile()).trim());
      return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
          && Procs.isOurServer(pid, mainClass(), dir);
    } catch (IOException | NumberFormatException e) {
      return false;
    }
  }

  private void deletePidFile() {
    try {
      Files.deleteIfExists(pidFile());
    } catch (IOException e) {
      log.warn("Could not delete {}: {}", pidFile(), e.toString());
    }
  }

  protected LocalRuntimeException failed(String what, Throwable cause) {
    String message = name() + " " + what + LogTail.describe(logFile(), TAIL_LINES, RUN_MARKER);
    return cause == null
        ? new LocalRuntimeException(message)
        : new LocalRuntimeException(message, cause);
  }

  /**
   * Plain text rendering of a JVM heap option value, guarded against typos that would break -Xmx.
   */
  protected static String heap(String value) {
    if (!value.matches("(?i)\\d+[kmg]?")) {
      throw new IllegalArgumentException(
          "Not a JVM heap size: '" + value + "' (use e.g. 512M or 1G)");
    }
    return value;
  }

  protected static List<String> list(String... items) {
    return new ArrayList<>(Arrays.asList(items));
  }
}
