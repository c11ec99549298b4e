// What the zoo's Node programs share besides the spec: reading a request body within a limit, serving on 127.0.0.1
// until SIGTERM, and running as a program only when started as one (importing a module for its fault table runs
// nothing).
import { pathToFileURL } from 'node:url';

/**
 * Reads the body, at most `limit` bytes kept: `{ bytes }`, or `{ tooLarge: true }` once more came. What comes after
 * the limit is read and dropped (so the client reads its 413 rather than a reset), up to 16 MiB.
 */
export function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      if (size > 16 * 1024 * 1024) req.destroy();
    });
    req.on('end', () => resolve(size > limit ? { tooLarge: true } : { bytes: Buffer.concat(chunks) }));
    req.on('error', reject);
  });
}

/** Listens on 127.0.0.1, prints its URL (with `path`) as the first line of stdout, and stops on SIGTERM. */
export function serve(server, port, path = '') {
  // Kept connections stay open 30 s, not node's 5 s: a client that reuses a connection after a few idle seconds (a
  // busy machine) must not meet it closing under its request.
  server.keepAliveTimeout = 30_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${server.address().port}${path}\n`));
  process.on('SIGTERM', () => {
    server.close();
    server.closeAllConnections();
    process.exit(0);
  });
}

/** Runs `start` when `meta` is the program started; a number it returns is the exit code; an error exits 2. */
export function runAsProgram(meta, label, start) {
  if (meta.url !== pathToFileURL(process.argv[1] ?? '').href) return;
  Promise.resolve()
    .then(start)
    .then(
      (code) => code !== undefined && process.exit(code),
      (error) => {
        process.stderr.write(`${label}: ${error.message}\n`);
        process.exit(2);
      },
    );
}
