// Type-checked (not run) by `tsc --noEmit`: the ES module entry point's types.
import { Verity, VerityError, type Hit } from 'verity-ai'

export async function esm(home: string): Promise<string> {
  const store = await Verity.open({ home, embedder: 'none' })
  const hits: Hit[] = (await store.search('x', { k: 1 })).hits
  await store.close()
  return `${hits.map((h) => h.uid).join()} ${VerityError.name}`
}
