// The path parameters of a job's addresses, shared by the routes that serve a
// job (core/jobs) and its files (core/artifacts): one schema each.
import { Type } from 'typebox'

/** `/api/tool-run/:id/…`, `/api/jobs/:id/…`: a job id. */
export const JobParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) })
/** `/api/tool-run/:id/artifacts/:artifactId`: one of the job's files. */
export const ArtifactParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }), artifactId: Type.String({ minLength: 1, maxLength: 64 }) })
