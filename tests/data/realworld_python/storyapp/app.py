import streamlit as st
from google import genai

client = genai.Client()

hero = st.text_input("Who is the hero?", value="Mittens the cat")
place = st.text_input("Where does the story happen?", value="A lighthouse")
length = st.radio("How long?", ["Short", "Long"])

prompt = f"""Write a {length} story about {hero}, set in {place}.
A short story has five chapters and a long one ten. Start with a prologue, then introduce each
chapter with one sentence before writing it, and end with an epilogue that ties the chapters
together. Keep the language simple enough for children and avoid anything frightening.
Give every chapter a title, keep the hero's name the same throughout, and do not add new main characters."""

if st.button("Write"):
    st.write(client.models.generate_content(model="gemini-2.5-flash", contents=prompt).text)
