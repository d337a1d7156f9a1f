// ES module entry point of the `verity-ai` package: the same classes as the
// CommonJS entry point (index.js), so `import { Verity } from 'verity-ai'`
// and `require('verity-ai')` share one native addon and one set of classes.
import verity from './index.js'

export const { Verity, VerityError, AnswerStream, fetch, errorTable } = verity
export default verity
