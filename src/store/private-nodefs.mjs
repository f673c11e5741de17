// PGlite's Node file system, with every file and directory it creates or chmods kept private to the
// service user. The data directory holds PHI in plain text (tables and WAL), but Emscripten's NODEFS does
// not go through the process umask for modes: it calls chmod with the mode the WebAssembly side asks for,
// and PGlite's initdb asks for 0666 (968 of 1,021 files of a new cluster). Masking that one call covers
// initdb (which reaches this file system through PROXYFS) and the running database alike.
//
// It also remembers file sizes between writes (see `fileSizeCache`).
//
// Plain JavaScript so that the initdb child process (pglite-init.mjs, run by plain Node) can use it too.
import { fstatSync } from 'node:fs';
import { NodeFS } from '@electric-sql/pglite/nodefs';

const GROUP_AND_OTHER = 0o077;

export class PrivateNodeFS extends NodeFS {
  async init(pg, emscriptenOptions) {
    const { emscriptenOpts } = await super.init(pg, emscriptenOptions);
    return {
      emscriptenOpts: {
        ...emscriptenOpts,
        preRun: [ownerOnlyModes, fileSizeCache, ...(emscriptenOpts.preRun ?? [])],
      },
    };
  }
}

function ownerOnlyModes(mod) {
  const nodefs = mod.NODEFS;
  // PGlite is pinned to an exact version; if an upgrade moves this hook, refuse to run rather than
  // silently write PHI readable by every user of the machine.
  if (typeof nodefs?.doSetAttr !== 'function') {
    throw new Error('PGlite no longer exposes NODEFS.doSetAttr: cannot keep the data directory private');
  }
  const setAttr = nodefs.doSetAttr;
  nodefs.doSetAttr = (path, node, attr, ...rest) =>
    setAttr.call(
      nodefs,
      path,
      node,
      attr.mode === undefined ? attr : { ...attr, mode: attr.mode & ~GROUP_AND_OTHER },
      ...rest,
    );
}

const S_IFMT = 0o170000;
const S_IFREG = 0o100000;

// PostgreSQL asks a relation's size by seeking to its end, many times per statement (every relation and
// index a plan touches). Emscripten's NODEFS answers each such seek with fs.fstatSync: a tenth of the
// embedded store's CPU under a batch. This process is the only writer of the data directory (its lock), and
// every write, truncation and fallocate goes through the hooks below, so a file's size, once read, holds
// until the next of those on that file. Sizes are kept per inode, so every descriptor of a file sees the
// same one; a descriptor's inode is learned at its first end-seek or write and forgotten when it closes
// (the number may then name another file), and a file whose size changes is read again at the next seek.
// Any truncation forgets every size. Only a cache: if NODEFS moves these hooks, seeks work as before.
function fileSizeCache(mod) {
  const nodefs = mod.NODEFS;
  const ops = nodefs?.stream_ops;
  if (
    typeof ops?.llseek !== 'function' ||
    typeof ops.write !== 'function' ||
    typeof ops.close !== 'function' ||
    typeof nodefs.doSetAttr !== 'function'
  ) {
    return;
  }
  const { llseek, write, close } = ops;
  const inodeOf = new Map(); // descriptor -> inode
  const sizeOf = new Map(); // inode -> size in bytes
  const learn = (fd) => {
    const stat = fstatSync(fd);
    inodeOf.set(fd, stat.ino);
    return stat;
  };
  ops.llseek = function (stream, offset, whence) {
    if (whence === 2 && (stream.node.mode & S_IFMT) === S_IFREG && stream.nfd !== undefined) {
      const inode = inodeOf.get(stream.nfd);
      let size = inode === undefined ? undefined : sizeOf.get(inode);
      if (size === undefined) {
        try {
          const stat = learn(stream.nfd);
          size = stat.size;
          sizeOf.set(stat.ino, size);
        } catch {
          return llseek.call(this, stream, offset, whence); // its own error, as before
        }
      }
      if (offset + size >= 0) return offset + size;
    }
    return llseek.call(this, stream, offset, whence);
  };
  ops.write = function (stream, ...rest) {
    let inode = inodeOf.get(stream.nfd);
    if (inode === undefined) {
      try {
        inode = learn(stream.nfd).ino;
      } catch {
        sizeOf.clear();
      }
    }
    try {
      return write.call(this, stream, ...rest);
    } finally {
      if (inode !== undefined) sizeOf.delete(inode);
    }
  };
  ops.close = function (stream) {
    inodeOf.delete(stream.nfd);
    return close.call(this, stream);
  };
  const setAttr = nodefs.doSetAttr;
  nodefs.doSetAttr = function (path, node, attr, ...rest) {
    try {
      return setAttr.call(this, path, node, attr, ...rest);
    } finally {
      if (attr.size !== undefined) sizeOf.clear();
    }
  };
}
