import React from "react";

interface Props {
  title: string;
}

export function Header({ title }: Props) {
  return <h1 className="title">{title}</h1>;
}

export const Footer = (props: Props) => <footer>{props.title}</footer>;

class Page extends React.Component<Props> {
  render() {
    return <Header title={this.props.title} />;
  }
}
