import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ComponentProps } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { disabledState } from '../test/disabledReason';
import { FormDialogActions } from './FormDialogActions';

type Props = Partial<ComponentProps<typeof FormDialogActions>>;

/** A form and, outside it as in a dialog's footer, its Cancel and submit buttons. */
function setup(props: Props = {}) {
  const onSubmit = vi.fn((event: { preventDefault: () => void }) => event.preventDefault());
  const onCancel = vi.fn();
  render(
    <>
      <form id="test-form" onSubmit={onSubmit} />
      <FormDialogActions formId="test-form" busy={false} submitLabel="Delete my account" onCancel={onCancel} {...props} />
    </>,
  );
  return { onSubmit, onCancel, user: userEvent.setup() };
}

describe('a form dialog’s Cancel and submit buttons', () => {
  it('sends the form it names and cancels', async () => {
    const { onSubmit, onCancel, user } = setup();
    const submit = screen.getByRole('button', { name: 'Delete my account' });
    expect(submit.className).toBe('button button-primary');
    expect(disabledState(submit)).toEqual({ disabled: false, reason: null, title: null });
    expect(screen.queryByTestId('disabled-reason')).toBeNull();
    await user.click(submit);
    expect(onSubmit).toHaveBeenCalledTimes(1);
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(onCancel).toHaveBeenCalledTimes(1);
  });

  it('shows a change that cannot be undone in red', () => {
    setup({ danger: true });
    expect(screen.getByRole('button', { name: 'Delete my account' }).className).toBe('button button-danger');
  });

  it('says why the submit button waits, next to it and to screen readers, and sends nothing', async () => {
    const { onSubmit, user } = setup({ danger: true, disabledReason: 'Enter your password to continue.' });
    const submit = screen.getByRole('button', { name: 'Delete my account' });
    expect(disabledState(submit)).toEqual({
      disabled: true,
      reason: 'Enter your password to continue.',
      title: 'Enter your password to continue.',
    });
    expect(screen.getByTestId('disabled-reason').textContent).toBe('Enter your password to continue.');
    await user.click(submit);
    expect(onSubmit).not.toHaveBeenCalled();
    // Cancel never waits for the form.
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveProperty('disabled', false);
  });

  it('waits while busy and says what it is doing', () => {
    setup({ busy: true, busyLabel: 'Deleting...' });
    expect(screen.getByRole('button', { name: 'Deleting...' })).toHaveProperty('disabled', true);
    expect(screen.getByRole('button', { name: 'Cancel' })).toHaveProperty('disabled', true);
  });

  it('says Saving... while busy unless told otherwise', () => {
    setup({ busy: true });
    expect(screen.getByRole('button', { name: 'Saving...' })).toHaveProperty('disabled', true);
  });
});
