/**
 * Two things React does that Preact's compat layer leaves out, and that this app relies on (it
 * runs on Preact: see the alias in vite.config.ts). Imported first by main.tsx and by the unit
 * tests' setup, so both run the same thing.
 *
 * - A field or button with `autoFocus` takes the focus when it appears. Preact only sets the
 *   attribute, which a browser honours once per page load, not in a dialog opened later.
 * - A controlled field (`value`, `checked`) shows what was last rendered after every change,
 *   also when the change left the state as it was: a backup code stays cut to 8 characters, a
 *   push switch that is refused stays off. Preact only corrects the field when it renders it
 *   again, which an unchanged state never does.
 */
// Compat first: its hook (React's prop names turned into Preact's) runs before this one.
import 'preact/compat';
import { options, type Ref, type VNode } from 'preact';

type Field = HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement;

/** What each controlled field showed when it was last rendered. */
interface Shown {
  value: string | null;
  checked: boolean | null;
}
const rendered = new WeakMap<Element, Shown>();
/** Elements that have taken the focus for their `autoFocus`: only on appearing, as in React. */
const autoFocused = new WeakSet<Element>();

const FIELDS = new Set(['input', 'textarea', 'select']);
// The names React's onChange ends up under (compat makes a text field's `oninput`) and the
// click that toggles a checkbox.
const CHANGES = /^on(input|change|click)$/i;

function showRendered(field: Field): void {
  const shown = rendered.get(field);
  if (!shown) return;
  if (shown.value !== null && field.value !== shown.value) field.value = shown.value;
  if (shown.checked !== null && field instanceof HTMLInputElement && field.checked !== shown.checked) {
    field.checked = shown.checked;
  }
}

/** After a change has run and Preact has rendered what it changed (a microtask later). */
function showRenderedAfterChange(field: Field): void {
  void Promise.resolve().then(() => {
    showRendered(field);
    // A radio button's change also unchecks the others of its group.
    if (field instanceof HTMLInputElement && field.type === 'radio' && field.name !== '') {
      for (const cousin of document.getElementsByName(field.name)) {
        if (cousin !== field && cousin instanceof HTMLInputElement) showRendered(cousin);
      }
    }
  });
}

/** Gives the element to the ref the code passed, and hands back its clean-up, if it has one. */
function passOn(ref: Ref<Element> | null | undefined, element: Element | null): (() => void) | undefined {
  if (typeof ref === 'function') return ref(element) ?? undefined;
  if (ref) ref.current = element;
  return undefined;
}

const previousVNodeHook = options.vnode?.bind(options);
options.vnode = (vnode: VNode) => {
  previousVNodeHook?.(vnode);
  if (typeof vnode.type !== 'string') return;
  const props = vnode.props as Record<string, unknown>;
  const value = typeof props.value === 'string' || typeof props.value === 'number' ? String(props.value) : null;
  const checked = typeof props.checked === 'boolean' ? props.checked : null;
  const controlled = FIELDS.has(vnode.type) && (value !== null || checked !== null);
  const autoFocus = props.autoFocus === true;
  if (!controlled && !autoFocus) return;

  if (controlled) {
    for (const name of Object.keys(props)) {
      const handler = props[name];
      if (!CHANGES.test(name) || typeof handler !== 'function') continue;
      props[name] = function (this: unknown, event: Event) {
        const result: unknown = handler.call(this, event);
        if (event.currentTarget instanceof Element && FIELDS.has(event.currentTarget.localName)) {
          showRenderedAfterChange(event.currentTarget as Field);
        }
        return result;
      };
    }
  }

  // A ref of this render: it learns the element, and what this render shows in it.
  const given = vnode.ref as Ref<Element> | null | undefined;
  const shown: Shown = { value, checked };
  vnode.ref = (element: Element | null) => {
    if (element && controlled) rendered.set(element, shown);
    if (element instanceof HTMLElement && autoFocus && !autoFocused.has(element)) {
      autoFocused.add(element);
      element.focus();
    }
    return passOn(given, element);
  };
};
