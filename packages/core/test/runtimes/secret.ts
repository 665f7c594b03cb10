/** The HS256 secret of the conformance app's JWT guard (kept out of the app module: a Workers module exports handlers only). */
export const JWT_SECRET = 'a-conformance-secret-of-32-chars!!';
