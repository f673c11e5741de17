// Loaded with `node --import` into a service process under test: makes the filesystem below
// FS_FAULT_DIR fail every write the way a read-only (EROFS) or forbidden (EACCES) directory does, while
// the file FS_FAULT_SWITCH exists and names the errno. This is the layer PGlite's files go through
// (Emscripten's NODEFS calls these synchronous `fs` functions). A real read-only filesystem is not used
// because a tmpfs with files open for writing cannot be remounted read-only (EBUSY), and root ignores
// file modes.
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { resolve, sep } from 'node:path';

const dir = process.env.FS_FAULT_DIR && resolve(process.env.FS_FAULT_DIR);
const switchFile = process.env.FS_FAULT_SWITCH;
if (dir && switchFile) {
  const ERRNO = { EROFS: -30, EACCES: -13 };
  const fault = () => {
    try {
      const code = fs.readFileSync(switchFile, 'utf8').trim();
      return code in ERRNO ? code : undefined;
    } catch {
      return undefined;
    }
  };
  const inside = (path) => typeof path === 'string' && (resolve(path) + sep).startsWith(dir + sep);
  const fail = (code, syscall, path) =>
    Object.assign(new Error(`${code}: injected fault, ${syscall} '${path}'`), {
      code,
      errno: ERRNO[code],
      syscall,
      path,
    });
  const { O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND } = fs.constants;
  const writes = (flags) =>
    typeof flags === 'string'
      ? /[wa+]/.test(flags)
      : (flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND)) !== 0;
  /** Descriptors opened below `dir`, so that writes through them fail too. */
  const fds = new Set();
  const patch = (name, guard) => {
    const real = fs[name];
    fs[name] = function (...args) {
      const code = guard(...args) && fault();
      if (code) throw fail(code, name, args[0]);
      return real.apply(this, args);
    };
  };
  const realOpen = fs.openSync;
  fs.openSync = (path, flags = 'r', mode) => {
    const code = inside(path) && writes(flags) && fault();
    if (code) throw fail(code, 'open', path);
    const fd = realOpen(path, flags, mode);
    if (inside(path)) fds.add(fd);
    return fd;
  };
  const realClose = fs.closeSync;
  fs.closeSync = (fd) => {
    fds.delete(fd);
    return realClose(fd);
  };
  for (const name of ['writeSync', 'ftruncateSync', 'fsyncSync', 'fdatasyncSync']) {
    patch(name, (fd) => fds.has(fd));
  }
  for (const name of [
    'mkdirSync',
    'renameSync',
    'rmdirSync',
    'unlinkSync',
    'symlinkSync',
    'truncateSync',
    'utimesSync',
    'chmodSync',
    'writeFileSync',
  ]) {
    patch(name, (path, other) => inside(path) || inside(other));
  }
  syncBuiltinESMExports();
}
