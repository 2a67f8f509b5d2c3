import type { TemplateName } from '../../db/notification-log.ts';
import type { TemplateParams } from '../intents/template-params.ts';

export type { TemplateParams };

/** What a template renders from beyond its stored params: links made at send time. */
export interface RenderLinks {
  unsubscribeUrl?: string | undefined;
  /** The contact-confirmation link (contact-confirmation only). */
  confirmUrl?: string | undefined;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text from an event, made inert in HTML: a candidate named `<script>` stays text. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
}

/** A header value on one line: folding is nodemailer's job, but a newline must never start a header. */
function oneLine(value: string): string {
  return value.replace(/[\r\n\t]+/g, ' ').trim();
}

function page(title: string, paragraphs: string[]): string {
  // Every interpolated value is escaped by the caller; paragraphs are HTML.
  return [
    '<!doctype html>',
    '<html><head><meta charset="utf-8"><title>',
    escapeHtml(title),
    '</title></head><body>',
    ...paragraphs.map((p) => `<p>${p}</p>`),
    '<p>— Hireflow</p></body></html>',
  ].join('');
}

/** Every email ends with the way out: the one-click unsubscribe link, also in the body. */
function withFooter(email: RenderedEmail, unsubscribeUrl: string | undefined): RenderedEmail {
  if (!unsubscribeUrl) return email;
  const link = escapeHtml(unsubscribeUrl);
  return {
    subject: email.subject,
    text: `${email.text}\nTo get no more email from Hireflow: ${unsubscribeUrl}\n`,
    html: email.html.replace(
      '</body>',
      `<p style="font-size:12px;color:#666"><a href="${link}">Unsubscribe</a> from Hireflow's emails.</p></body>`,
    ),
  };
}

const percent = (score: number) => `${Math.round(score * 100)} %`;

const templates: { [T in TemplateName]: (params: TemplateParams[T], links: RenderLinks) => RenderedEmail } = {
  welcome: ({ name }) => {
    const subject = oneLine(`Welcome to Hireflow, ${name}`);
    return {
      subject,
      text: `Hello ${name},\n\nwelcome to Hireflow. We will write to you when a posting matches your profile.\n\n— Hireflow\n`,
      html: page(subject, [
        `Hello ${escapeHtml(name)},`,
        'welcome to Hireflow. We will write to you when a posting matches your profile.',
      ]),
    };
  },
  match: ({ name, title, score }) => {
    const subject = oneLine(`New match: ${title}`);
    return {
      subject,
      text: `Hello ${name},\n\nthe posting "${title}" matches your profile (${percent(score)}).\n\n— Hireflow\n`,
      html: page(subject, [
        `Hello ${escapeHtml(name)},`,
        `the posting <strong>${escapeHtml(title)}</strong> matches your profile (${percent(score)}).`,
      ]),
    };
  },
  'job-matched': ({ title, matchCount, computedAt }) => {
    const subject = oneLine(
      `${matchCount} ${matchCount === 1 ? 'candidate matches' : 'candidates match'} ${title}`,
    );
    const summary = `Your posting "${title}" has ${matchCount} matching ${matchCount === 1 ? 'candidate' : 'candidates'} (computed ${computedAt}).`;
    return {
      subject,
      text: `Hello,\n\n${summary}\n\n— Hireflow\n`,
      html: page(subject, ['Hello,', escapeHtml(summary)]),
    };
  },
  'webhook-disabled': ({ endpointId, host, reason, disabledAt }) => {
    const subject = oneLine(`Your Hireflow webhook endpoint at ${host} is disabled`);
    const lines = [
      `Hireflow disabled your webhook endpoint ${endpointId} (host ${host}) at ${disabledAt}: ${reason}.`,
      'Deliveries to it have stopped. Fix the receiver, then enable it again with PATCH /v1/webhooks/{id} {"enabled": true}; its delivery log (GET /v1/webhooks/{id}/deliveries) shows what failed.',
    ];
    return {
      subject,
      text: `Hello,\n\n${lines.join('\n\n')}\n\n— Hireflow\n`,
      html: page(subject, ['Hello,', ...lines.map(escapeHtml)]),
    };
  },
  'contact-confirmation': ({ title }, { confirmUrl }) => {
    if (!confirmUrl) throw new Error('a contact confirmation needs its link');
    const subject = 'Confirm this address for job posting summaries';
    const ask = `A Hireflow customer named this address as the contact of its posting "${title}". Open the link to confirm and receive its match summaries here; if you do not know it, ignore this email and nothing more will come from that customer.`;
    return {
      subject,
      text: `Hello,\n\n${ask}\n\n${confirmUrl}\n\n— Hireflow\n`,
      html: page(subject, [
        'Hello,',
        escapeHtml(ask),
        `<a href="${escapeHtml(confirmUrl)}">Confirm this address</a>`,
      ]),
    };
  },
};

export function render<T extends TemplateName>(
  template: T,
  params: TemplateParams[T],
  options: RenderLinks = {},
): RenderedEmail {
  return withFooter(templates[template](params, options), options.unsubscribeUrl);
}
