// What each template needs, as an intent records it (the template renders it
// at send time): the intents' type, so the email module reads intents and
// intents import nothing of email.

/** What each template needs; stored with the log row, so a retry renders the same email. */
export interface TemplateParams {
  welcome: { name: string };
  match: { name: string; title: string; score: number };
  'job-matched': { title: string; matchCount: number; computedAt: string };
  'webhook-disabled': { endpointId: string; host: string; reason: string; disabledAt: string };
  /** The posting that named the address; the link is made when the email is rendered. */
  'contact-confirmation': { title: string };
}
