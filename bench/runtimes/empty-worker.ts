// A Worker that does nothing but answer: the baseline workerd's own start-up costs.
export default { fetch: () => new Response('{}', { headers: { 'content-type': 'application/json' } }) };
