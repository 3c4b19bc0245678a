/** Stripe's API: the default base of `serve --stripe-api-base` (apart, so the command line names it without loading Stripe). */
export const STRIPE_API_BASE = 'https://api.stripe.com'
