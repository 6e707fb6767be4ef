package io.ambergarden.localrt;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.util.Arrays;

/**
 * The main class every local server starts through: {@code ParentWatch <server main class> <args>}.
 * It runs the server's main, and stops the server (System.exit, so its shutdown hooks drain it as
 * SIGTERM would) once its stdin reaches end of file. The launching JVM holds the other end of that
 * pipe and never writes to it, so EOF means that JVM is gone, however it died, SIGKILL included: a
 * server in a session of its own (see {@link ServerProcess}) never outlives it.
 *
 * <p>It depends on the JDK only: {@link ServerProcess} copies this one class file next to the
 * runtime data and puts it on the server's classpath.
 */
public final class ParentWatch {
  private ParentWatch() {}

  public static void main(String[] args) throws Throwable {
    Thread watch = new Thread(ParentWatch::exitWhenStdinCloses, "parent-watch");
    watch.setDaemon(true);
    watch.start();
    try {
      Class.forName(args[0])
          .getMethod("main", String[].class)
          .invoke(null, (Object) Arrays.copyOfRange(args, 1, args.length));
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  private static void exitWhenStdinCloses() {
    try {
      while (System.in.read() >= 0) {
        // nothing is ever written; a byte would not mean anything
      }
    } catch (IOException e) {
      // a broken pipe is EOF too
    }
    System.err.println("parent-watch: the JVM that started this server is gone; stopping");
    System.exit(0);
  }
}
