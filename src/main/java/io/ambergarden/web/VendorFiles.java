package io.ambergarden.web;

import io.vertx.core.Handler;
import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * GET /vendor/&lt;library&gt;/&lt;file&gt;: the few files of the WebJars the console loads (uPlot
 * for its charts, Swagger UI for the API reference), from the classpath. The paths carry no
 * version, so the pages stay the same when a WebJar is bumped in the pom. Other paths go on to the
 * next handler.
 */
final class VendorFiles implements Handler<RoutingContext> {
  static final String PREFIX = "/vendor/";

  /** A WebJar: its Maven coordinates, the folder of the files under its version, the files. */
  record Library(String group, String artifact, String folder, List<String> files) {}

  static final List<Library> LIBRARIES =
      List.of(
          new Library(
              "org.webjars.npm", "uplot", "dist/", List.of("uPlot.iife.min.js", "uPlot.min.css")),
          new Library(
              "org.webjars", "swagger-ui", "", List.of("swagger-ui-bundle.js", "swagger-ui.css")));

  /** Request path to classpath resource. */
  private final Map<String, String> resources;

  private VendorFiles(Map<String, String> resources) {
    this.resources = Map.copyOf(resources);
  }

  /** Finds each WebJar's version on the classpath; throws when one is missing. */
  static VendorFiles load() {
    Map<String, String> resources = new HashMap<>();
    for (Library lib : LIBRARIES) {
      String root =
          "META-INF/resources/webjars/" + lib.artifact() + "/" + version(lib) + "/" + lib.folder();
      for (String file : lib.files()) {
        resources.put(PREFIX + lib.artifact() + "/" + file, root + file);
      }
    }
    return new VendorFiles(resources);
  }

  private static String version(Library lib) {
    String pom = "META-INF/maven/" + lib.group() + "/" + lib.artifact() + "/pom.properties";
    try (InputStream in = VendorFiles.class.getClassLoader().getResourceAsStream(pom)) {
      if (in == null) {
        throw new IllegalStateException(
            "the WebJar " + lib.group() + ":" + lib.artifact() + " is not on the classpath");
      }
      Properties props = new Properties();
      props.load(in);
      return props.getProperty("version");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + pom, e);
    }
  }

  @Override
  public void handle(RoutingContext ctx) {
    String resource = resources.get(ctx.normalizedPath());
    if (resource == null) {
      ctx.next();
      return;
    }
    ctx.response()
        .putHeader(HttpHeaders.CONTENT_TYPE, contentType(resource))
        .putHeader(HttpHeaders.CACHE_CONTROL, "no-cache")
        .sendFile(resource)
        .onFailure(ctx::fail);
  }

  private static String contentType(String resource) {
    return resource.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
  }
}
