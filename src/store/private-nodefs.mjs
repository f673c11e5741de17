// PGlite's Node file system, with every file and directory it creates or chmods kept private to the
// service user. The data directory holds PHI in plain text (tables and WAL), but Emscripten's NODEFS does
// not go through the process umask for modes: it calls chmod with the mode the WebAssembly side asks for,
// and PGlite's initdb asks for 0666 (968 of 1,021 files of a new cluster). Masking that one call covers
// initdb (which reaches this file system through PROXYFS) and the running database alike.
//
// Plain JavaScript so that the initdb child process (pglite-init.mjs, run by plain Node) can use it too.
import { NodeFS } from '@electric-sql/pglite/nodefs';

const GROUP_AND_OTHER = 0o077;

export class PrivateNodeFS extends NodeFS {
  async init(pg, emscriptenOptions) {
    const { emscriptenOpts } = await super.init(pg, emscriptenOptions);
    return {
      emscriptenOpts: { ...emscriptenOpts, preRun: [ownerOnlyModes, ...(emscriptenOpts.preRun ?? [])] },
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
