// The seed's user model as a zod schema, shared by the servers that validate with zod.
import { z } from 'zod';

export const User = z.object({
  name: z.string().min(2).max(50),
  email: z.email(),
  age: z.int().min(18).max(120),
  role: z.enum(['admin', 'user', 'guest']).default('user'),
  tags: z.array(z.string()).default([]),
});
