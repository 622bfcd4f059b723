// <stampede-figure src="https://example.org/stampede/?v=1&p=queue&fig=depth">
//
// A live Stampede figure on any page, from one module script. It holds the
// figure's place at its usual height, loads the figure in an iframe when it
// comes near the viewport, and then fits the iframe to the height the
// figure reports. Attributes:
// - src: a Stampede address (the Embed button writes one); required;
// - theme: "light" or "dark"; without it (or a `theme=` in src) the figure
//   follows the page's `color-scheme` where that names one scheme, else the
//   reader's system setting;
// - height: the height in pixels held before the figure loads (default 360
//   for one figure, 900 for a whole panel);
// - title: the iframe's accessible name (default "Stampede figure").

const HEIGHT_MESSAGE = 'stampede:height';
// Start loading this far before the figure scrolls into view.
const NEAR = '400px';

/**
 * The scheme the host page asks for, when it names exactly one: its root's
 * `color-scheme`, else its `<meta name="color-scheme">`.
 */
function pageScheme() {
  const declared = [
    getComputedStyle(document.documentElement).colorScheme,
    document.querySelector('meta[name="color-scheme"]')?.content,
  ];
  for (const value of declared) {
    const words = new Set((value || '').split(/\s+/).filter((word) => word === 'light' || word === 'dark'));
    if (words.size === 1) return [...words][0];
  }
  return null;
}

class StampedeFigure extends HTMLElement {
  #observer = null;
  #onMessage = null;

  connectedCallback() {
    const src = this.getAttribute('src');
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    root.replaceChildren();
    let address;
    try {
      address = new URL(src, document.baseURI);
    } catch {
      root.textContent = `<stampede-figure>: "${src ?? ''}" is not an address.`;
      return;
    }
    address.searchParams.set('embed', '1');
    const asked = this.getAttribute('theme') || address.searchParams.get('theme');
    const theme = asked === 'light' || asked === 'dark' ? asked : pageScheme();
    if (theme === 'light' || theme === 'dark') address.searchParams.set('theme', theme);
    const onePanel = !address.searchParams.has('fig');
    const height = Number(this.getAttribute('height')) || (onePanel ? 900 : 360);
    const title = this.getAttribute('title') || 'Stampede figure';

    const style = document.createElement('style');
    style.textContent = `
      :host { display: block; }
      .placeholder, iframe { display: block; width: 100%; box-sizing: border-box; border: 0; }
      .placeholder { display: grid; place-items: center; border: 1px dashed #8886; border-radius: 8px;
        color: #888; font: 0.9rem system-ui, sans-serif; }`;
    const placeholder = document.createElement('a');
    placeholder.className = 'placeholder';
    placeholder.href = src;
    placeholder.textContent = `${title} (loading…)`;
    placeholder.style.height = `${height}px`;
    root.append(style, placeholder);

    const load = () => {
      const frame = document.createElement('iframe');
      frame.title = title;
      frame.loading = 'lazy';
      frame.src = address.href;
      frame.style.height = `${height}px`;
      this.#onMessage = (event) => {
        const data = event.data;
        if (event.source !== frame.contentWindow || event.origin !== address.origin) return;
        if (data && data.type === HEIGHT_MESSAGE && Number.isFinite(data.height) && data.height > 0) {
          frame.style.height = `${Math.ceil(data.height)}px`;
        }
      };
      addEventListener('message', this.#onMessage);
      placeholder.replaceWith(frame);
    };
    if (!('IntersectionObserver' in window)) return load();
    this.#observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          this.#observer.disconnect();
          load();
        }
      },
      { rootMargin: NEAR },
    );
    this.#observer.observe(this);
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    if (this.#onMessage) removeEventListener('message', this.#onMessage);
    this.#onMessage = null;
    this.shadowRoot?.replaceChildren();
  }
}

if (!customElements.get('stampede-figure')) customElements.define('stampede-figure', StampedeFigure);
