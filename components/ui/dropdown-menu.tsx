'use client';

import * as Menu from '@radix-ui/react-dropdown-menu';
import { createContext, useContext, useRef, type ReactNode, type RefObject } from 'react';
import { cn } from './cn';

/**
 * A row's actions behind one button (Radix DropdownMenu: arrow keys, typeahead, Escape).
 * `onPick` runs once the menu has closed, with the focus on the menu's button, so a dialog opened
 * from it returns focus to that button when it closes.
 */
const MenuButton = createContext<RefObject<HTMLButtonElement | null> | null>(null);

export function ActionMenu({ trigger, children }: { trigger: ReactNode; children: ReactNode }) {
  const button = useRef<HTMLButtonElement>(null);
  return (
    <Menu.Root modal={false}>
      <Menu.Trigger asChild ref={button}>
        {trigger}
      </Menu.Trigger>
      <Menu.Portal>
        <Menu.Content
          align="end"
          sideOffset={4}
          className="z-50 grid min-w-40 gap-0.5 rounded-lg border border-slate-200 bg-white p-1 text-sm shadow-lg dark:border-slate-700 dark:bg-slate-900"
        >
          <MenuButton.Provider value={button}>{children}</MenuButton.Provider>
        </Menu.Content>
      </Menu.Portal>
    </Menu.Root>
  );
}

export function ActionMenuItem({ children, onPick, destructive }: { children: ReactNode; onPick: () => void; destructive?: boolean }) {
  const button = useContext(MenuButton);
  return (
    <Menu.Item
      // After the menu has closed, with the focus put on its button first: a dialog the picked
      // action opens takes that button as the element to give the focus back to.
      onSelect={() =>
        setTimeout(() => {
          button?.current?.focus();
          onPick();
        }, 0)
      }
      className={cn(
        'flex cursor-default items-center gap-2 rounded-md px-2.5 py-1.5 outline-none select-none data-[highlighted]:bg-slate-100 dark:data-[highlighted]:bg-slate-800',
        destructive ? 'text-red-700 dark:text-red-400' : 'text-slate-800 dark:text-slate-200',
      )}
    >
      {children}
    </Menu.Item>
  );
}

export const ActionMenuSeparator = () => <Menu.Separator className="my-1 h-px bg-slate-200 dark:bg-slate-700" />;
