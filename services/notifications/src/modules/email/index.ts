export type { AcceptedEmail, Mailer, MailerOptions, OutgoingEmail } from './mailer.ts';
export { createMailer, messageIdFor } from './mailer.ts';
export type { SentEmail } from './processor.ts';
export type { RenderedEmail, TemplateParams } from './templates.ts';
export { render } from './templates.ts';
