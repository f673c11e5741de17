// Creates a PGlite cluster in the directory given as the only argument, then exits. The service runs this
// in a child process the first time a data directory is used: initdb's WebAssembly memory (hundreds of
// MB) is then returned to the system with the child, instead of staying in the long-running process.
// The child inherits the parent's umask; PrivateNodeFS keeps the modes initdb asks for owner-only.
import { PGlite } from '@electric-sql/pglite';
import { PrivateNodeFS } from './private-nodefs.mjs';

const lite = await PGlite.create({ fs: new PrivateNodeFS(process.argv[2]) });
await lite.close();
