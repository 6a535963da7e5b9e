import { Component, type ReactNode } from 'react';
import { useTranslation } from '../i18n/useTranslation';
import { useLocation } from 'react-router-dom';

function LoadFailed({ inline }: { inline: boolean }) {
  const { t, ready } = useTranslation('translation', { useSuspense: false });
  return (
    <div className={inline ? 'form-error screen-error' : 'loading-screen'} role="alert">
      {/* When the texts failed to arrive too, the way out is still offered, in English. */}
      <p>{ready ? t('common.loadFailed') : 'This page could not be loaded.'}</p>
      <button type="button" className="button-link" onClick={() => window.location.reload()}>
        {ready ? t('common.reload') : 'Reload'}
      </button>
    </div>
  );
}

interface BoundaryProps {
  children: ReactNode;
  inline: boolean;
  /** The page's path: another page tries again. */
  path: string;
}

interface BoundaryState {
  failed: boolean;
  path: string;
}

class Boundary extends Component<BoundaryProps, BoundaryState> {
  state: BoundaryState = { failed: false, path: this.props.path };

  static getDerivedStateFromProps(props: BoundaryProps, state: BoundaryState): Partial<BoundaryState> | null {
    return props.path === state.path ? null : { failed: false, path: props.path };
  }

  static getDerivedStateFromError(): Partial<BoundaryState> {
    return { failed: true };
  }

  componentDidCatch(error: unknown) {
    console.error('A screen could not be loaded', error);
  }

  render() {
    return this.state.failed ? <LoadFailed inline={this.props.inline} /> : this.props.children;
  }
}

/**
 * A screen's code, fetched with its route, can fail to arrive: offline before the service
 * worker kept it, or in a tab left open across an update that replaced the files. The person
 * is told, with a reload, instead of a blank page.
 */
export function RouteErrorBoundary({ children, inline = false }: { children: ReactNode; inline?: boolean }) {
  const { pathname } = useLocation();
  return (
    <Boundary inline={inline} path={pathname}>
      {children}
    </Boundary>
  );
}
